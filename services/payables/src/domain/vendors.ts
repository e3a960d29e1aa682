import { type Metadata, type VendorCreateBody, type VendorType, type VendorUpdateBody, canonicalJson, metadataOnCreate, patchedMetadata } from '@acct/contracts';

/** What a vendor says of itself: what a create gives (defaults applied) and a PATCH may change (the entity extends it). */
export interface VendorFields {
  displayName: string;
  vendorType: VendorType;
  email: string | null;
  is1099Eligible: boolean;
  w9OnFile: boolean;
  metadata: Metadata;
}

/** What a create says, with the defaults applied (vendor_type contractor, flags false). */
export function vendorFields(body: VendorCreateBody): VendorFields {
  return {
    displayName: body.display_name,
    vendorType: body.vendor_type ?? 'contractor',
    email: body.email ?? null,
    is1099Eligible: body.is_1099_eligible ?? false,
    w9OnFile: body.w9_on_file ?? false,
    metadata: metadataOnCreate(body.metadata),
  };
}

/** A retried create is a replay only if it says exactly what the first one said (defaults applied; metadata in any key order). */
export function sameVendorContent(existing: VendorFields, body: VendorCreateBody): boolean {
  const given = vendorFields(body);
  return (Object.keys(given) as (keyof VendorFields)[]).every((k) => (k === 'metadata' ? canonicalJson(existing[k]) === canonicalJson(given[k]) : existing[k] === given[k]));
}

/**
 * The fields a PATCH changes (only those it names, and only when the value differs; metadata merged,
 * 400 when the merge leaves too many keys); empty when the vendor already says what the body says.
 */
export function vendorChanges(current: VendorFields, body: VendorUpdateBody): Partial<VendorFields> {
  const wanted: Partial<VendorFields> = {};
  if (body.display_name !== undefined) wanted.displayName = body.display_name;
  if (body.email !== undefined) wanted.email = body.email;
  if (body.is_1099_eligible !== undefined) wanted.is1099Eligible = body.is_1099_eligible;
  if (body.w9_on_file !== undefined) wanted.w9OnFile = body.w9_on_file;
  const changed: Partial<VendorFields> = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => current[k as keyof VendorFields] !== v));
  if (body.metadata !== undefined) {
    const merged = patchedMetadata(current.metadata, body.metadata);
    if (canonicalJson(merged) !== canonicalJson(current.metadata)) changed.metadata = merged;
  }
  return changed;
}
