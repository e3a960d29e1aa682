import { type CustomerCreateBody, type CustomerUpdateBody, type Metadata, canonicalJson, metadataOnCreate, patchedMetadata } from '@acct/contracts';

/** A retried create is a replay only if it says exactly what the first one said (metadata included, in any key order). */
export function sameCustomerContent(existing: { name: string; email: string | null; metadata: Metadata }, body: CustomerCreateBody): boolean {
  return existing.name === body.name && existing.email === (body.email ?? null) && canonicalJson(existing.metadata) === canonicalJson(metadataOnCreate(body.metadata));
}

interface CustomerFields {
  name: string;
  email: string | null;
  metadata: Metadata;
}

/** What a PATCH asks the customer to become: the fields it names, metadata merged (400 when too many keys). */
export function customerPatch(current: CustomerFields, body: CustomerUpdateBody): Partial<CustomerFields> {
  const next: Partial<CustomerFields> = {};
  if (body.name !== undefined) next.name = body.name;
  if (body.email !== undefined) next.email = body.email;
  if (body.metadata !== undefined) next.metadata = patchedMetadata(current.metadata, body.metadata);
  return next;
}
