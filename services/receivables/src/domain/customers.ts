import type { CustomerCreateBody } from '@acct/contracts';

/** A retried create is a replay only if it says exactly what the first one said. */
export function sameCustomerContent(existing: { name: string; email: string | null }, body: CustomerCreateBody): boolean {
  return existing.name === body.name && existing.email === (body.email ?? null);
}
