import { randomUUID } from 'node:crypto';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { type Books, createRecordOnce } from '@acct/posting';
import { CUSTOMER, type Customer, CustomerSchema, customerDto } from '../entities';
import { sameCustomerContent } from '../domain/customers';
import { createCustomer } from '../flows/customers';

export function registerCustomerHandlers(server: RpcServer, books: Books): void {
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
    return createRecordOnce(CUSTOMER, {
      row,
      store: () => books.transact(req.ctx, (tx) => createCustomer(tx, row)),
      existing: () => books.orm.em.fork().findOne(CustomerSchema, { ...scope, externalCustomerId: body.external_customer_id }),
      same: (ex) => sameCustomerContent(ex, body),
    });
  });

  registerReads(server, books.orm, {
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
