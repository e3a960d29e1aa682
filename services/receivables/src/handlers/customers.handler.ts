import { randomUUID } from 'node:crypto';
import { metadataOnCreate } from '@acct/contracts';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { type Books, createInBooks, updateInBooks } from '@acct/posting';
import { CUSTOMER, type Customer, CustomerSchema } from '../entities';
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

  server.handle('customers.update', (req) => updateInBooks(books, req.ctx, CUSTOMER, (tx) => updateCustomer(tx, req.params.id, req.body)));

  registerReads(server, books.orm, 'customers', { ...CUSTOMER, schema: CustomerSchema, filters: {} });
}
