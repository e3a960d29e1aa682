import type { CustomerCreateBody } from '@acct/contracts';
import type { Customer } from '../entities';

/** A retried create is a replay only if it says exactly what the first one said. */
export function sameCustomerContent(existing: Pick<Customer, 'name' | 'email'>, body: CustomerCreateBody): boolean {
  return existing.name === body.name && existing.email === (body.email ?? null);
}
