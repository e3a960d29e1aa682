import { randomUUID } from 'node:crypto';
import { single } from '@acct/contracts';
import { type Orm, type RpcServer, scopeOf, registerReads } from '@acct/kit';
import { createOnce } from '@acct/posting';
import { type Customer, CustomerSchema, customerDto } from '../entities';
import { sameCustomerContent } from '../domain/customers';

export function registerCustomerHandlers(server: RpcServer, orm: Orm): void {
  server.handle('customers.create', async (req) => {
    const em = orm.em.fork();
    const scope = scopeOf(req.ctx);
    const body = req.body;
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
        await em.insert(CustomerSchema, row);
        return { ok: true, status: 201, body: single('customer', customerDto(row)) };
      },
      existing: () => orm.em.fork().findOne(CustomerSchema, { ...scope, externalCustomerId: body.external_customer_id }),
      same: (ex) => sameCustomerContent(ex, body),
      reply: (ex) => single('customer', customerDto(ex)),
      field: '/external_customer_id',
      what: 'customer',
    });
  });

  registerReads(server, orm, { list: 'customers.list', get: 'customers.get', schema: CustomerSchema, name: 'customer', plural: 'customers', label: 'Customer', dto: customerDto, filters: {} });
}
