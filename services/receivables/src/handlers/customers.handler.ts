import { randomUUID } from 'node:crypto';
import { metadataOnCreate, single } from '@acct/contracts';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { type Books, createInBooks } from '@acct/posting';
import { CUSTOMER, type Customer, CustomerSchema, customerDto } from '../entities';
import { sameCustomerContent } from '../domain/customers';
import { createCustomer, updateCustomer } from '../flows/customers';
import { findCustomerByExternalId } from '../queries';

export function registerCustomerHandlers(server: RpcServer, books: Books): void {
  server.handle('customers.create', async (req) => {
    const body = req.body;
    const now = new Date();
    const row: Customer = {
      id: randomUUID(),
      ...scopeOf(req.ctx),
      externalCustomerId: body.external_customer_id,
      name: body.name,
      email: body.email ?? null,
      status: 'active',
      metadata: metadataOnCreate(body.metadata),
      createdAt: now,
      updatedAt: now,
    };
    return createInBooks(books, req.ctx, CUSTOMER, row, {
      flow: createCustomer,
      find: (db) => findCustomerByExternalId(db, body.external_customer_id),
      same: (ex) => sameCustomerContent(ex, body),
    });
  });

  server.handle('customers.update', async (req) => {
    const customer = await books.transact(req.ctx, (tx) => updateCustomer(tx, req.params.id, req.body));
    return { ok: true, status: 200, body: single('customer', customerDto(customer)) };
  });

  registerReads(server, books.orm, { ...CUSTOMER, list: 'customers.list', get: 'customers.get', schema: CustomerSchema, plural: 'customers', label: 'Customer', filters: {} });
}
