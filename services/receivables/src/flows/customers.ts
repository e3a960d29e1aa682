import type { CustomerUpdateBody } from '@acct/contracts';
import { type PartyWrites, type Tx, changesOf, createParty, updateParty } from '@acct/posting';
import { type Customer, CustomerSchema, customerDto } from '../entities';
import { customerPatch } from '../domain/customers';
import { lockCustomer } from '../queries';

/** Customers are kept in copies by other services (reporting's names): customer.created and customer.updated tell them. */
const CUSTOMERS: PartyWrites<Customer, 'customer.created', 'customer.updated'> = {
  schema: CustomerSchema,
  label: 'Customer',
  created: 'customer.created',
  updated: 'customer.updated',
  dto: customerDto,
  lock: lockCustomer,
};

/** Stores a new customer and tells the services that keep copies of customers (customer.created). */
export const createCustomer = (tx: Tx, row: Customer): Promise<Customer> => createParty(CUSTOMERS, tx, row);

/**
 * PATCH: applies the fields the body names (metadata merged) under the customer's row lock; when
 * something changed, updated_at grows and customer.updated tells the copies (reporting's names).
 */
export const updateCustomer = (tx: Tx, id: string, body: CustomerUpdateBody): Promise<Customer> =>
  updateParty(CUSTOMERS, tx, id, (customer) => changesOf(customer, customerPatch(customer, body)));
