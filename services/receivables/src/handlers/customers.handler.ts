import { randomUUID } from 'node:crypto';
import { single } from '@acct/contracts';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { type Books, createOnce } from '@acct/posting';
import { type Customer, CustomerSchema, customerDto } from '../entities';
import { sameCustomerContent } from '../domain/customers';
import { createCustomer } from '../flows/customers';

export function registerCustomerHandlers(server: RpcServer, books: Books): void {
  const { orm } = books;

  server.handle('customers.create', async (req) => {
    const body = req.body;
    const scope = scopeOf(req.ctx);
    const row: Customer = {
      id: randomUUID(),
      ...scope,
      externalCustomerId: body.external_customer_id,
      name: body.name,
      email: body.email ?? null,
      status: 'active',
      createdAt: new Date(),
    };
    return createOnce({
      constraint: 'customers_external_id',
      create: async () => {
        await books.transact(req.ctx, (tx) => createCustomer(tx, row));
        return { ok: true, status: 201, body: single('customer', customerDto(row)) };
      },
      existing: () => orm.em.fork().findOne(CustomerSchema, { ...scope, externalCustomerId: body.external_customer_id }),
      same: (ex) => sameCustomerContent(ex, body),
      reply: (ex) => single('customer', customerDto(ex)),
      field: '/external_customer_id',
      what: 'customer',
    });
  });

  registerReads(server, orm, {
    list: 'customers.list',
    get: 'customers.get',
    schema: CustomerSchema,
    name: 'customer',
    plural: 'customers',
    label: 'Customer',
    dto: customerDto,
    filters: {},
  });
}
