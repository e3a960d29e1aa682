import { AppError, type CustomerUpdateBody } from '@acct/contracts';
import { type Tx, changesOf, nextUpdatedAt } from '@acct/posting';
import { insertEntity } from '@acct/kit';
import { type Customer, CustomerSchema, customerDto } from '../entities';
import { customerPatch } from '../domain/customers';
import { lockCustomer } from '../queries';

/** Stores a new customer and tells the services that keep copies of customers (customer.created). */
export async function createCustomer(tx: Tx, row: Customer): Promise<Customer> {
  await insertEntity(tx.em, CustomerSchema, row);
  tx.emit('customer.created', customerDto(row));
  return row;
}

/**
 * PATCH: applies the fields the body names (metadata merged) under the customer's row lock; when
 * something changed, updated_at grows and customer.updated tells the copies (reporting's names).
 */
export async function updateCustomer(tx: Tx, id: string, body: CustomerUpdateBody): Promise<Customer> {
  const customer = await lockCustomer(tx, id);
  if (!customer) throw AppError.notFound('Customer', id);
  const changes = changesOf(customer, customerPatch(customer, body));
  if (Object.keys(changes).length === 0) return customer;
  Object.assign(customer, changes, { updatedAt: nextUpdatedAt(customer.updatedAt) });
  tx.emit('customer.updated', customerDto(customer));
  return customer;
}
