import type { Tx } from '@acct/posting';
import { type Customer, CustomerSchema, customerDto } from '../entities';

/** Stores a new customer and tells the services that keep copies of customers (customer.created). */
export async function createCustomer(tx: Tx, row: Customer): Promise<Customer> {
  await tx.em.insert(CustomerSchema, row);
  tx.emit('customer.created', customerDto(row));
  return row;
}
