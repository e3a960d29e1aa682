import { Type } from '@sinclair/typebox';
import { AppError } from '../errors';

/** API-DECISIONS §11: `metadata` limits. */
export const METADATA_KEYS_MAX = 50;
export const METADATA_KEY_LENGTH_MAX = 40;
export const METADATA_VALUE_LENGTH_MAX = 500;

export type Metadata = Record<string, string>;

const DESCRIPTION =
  `Your own key-value pairs, never used for accounting: at most ${METADATA_KEYS_MAX} keys of 1–${METADATA_KEY_LENGTH_MAX} characters (no [ or ]), ` +
  `string values of at most ${METADATA_VALUE_LENGTH_MAX} characters. On create a key set to "" is left out; on PATCH the object is merged into the ` +
  'stored one and a key set to "" is removed. Part of the content compared when a create is repeated with the same external id.';

/** The `metadata` of a create or PATCH body (API-DECISIONS §11). */
export const metadataInput = Type.Unsafe<Metadata>({
  type: 'object',
  maxProperties: METADATA_KEYS_MAX,
  propertyNames: { minLength: 1, maxLength: METADATA_KEY_LENGTH_MAX, pattern: '^[^\\[\\]\\u0000]*$' },
  additionalProperties: { type: 'string', maxLength: METADATA_VALUE_LENGTH_MAX },
  description: DESCRIPTION,
});

/** The `metadata` of a record: always an object, `{}` when none was set. */
export const metadataRecord = Type.Unsafe<Metadata>({
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Your own key-value pairs (see metadata on create); {} when none were set.',
});

/**
 * The metadata stored on create: the given pairs without those set to "" (absent → {}). Built with
 * Object.fromEntries, never `out[k] = v`, so a key such as "__proto__" stays a plain key.
 */
export function metadataOnCreate(given: Metadata | undefined): Metadata {
  return Object.fromEntries(Object.entries(given ?? {}).filter(([, v]) => v !== ''));
}

/** The metadata after a PATCH: `patch` merged into `current`, a key set to "" removed (keys keep their first place). */
export function mergeMetadata(current: Metadata, patch: Metadata | undefined): Metadata {
  const out = new Map(Object.entries(current));
  for (const [k, v] of Object.entries(patch ?? {})) {
    if (v === '') out.delete(k);
    else out.set(k, v);
  }
  return Object.fromEntries(out);
}

/** A merge may not leave more keys than the limit: the number of keys after it, checked by the service (400 on /metadata). */
export function metadataTooLarge(m: Metadata): boolean {
  return Object.keys(m).length > METADATA_KEYS_MAX;
}

/** The stored metadata after a PATCH's `patch` (undefined: unchanged); 400 on /metadata when the merge leaves too many keys. */
export function patchedMetadata(current: Metadata, patch: Metadata | undefined): Metadata {
  if (patch === undefined) return current;
  const merged = mergeMetadata(current, patch);
  if (metadataTooLarge(merged)) {
    throw AppError.validation(`metadata would hold ${Object.keys(merged).length} keys after the merge: at most ${METADATA_KEYS_MAX}.`, [
      { field: '/metadata', issue: 'too_many', message: `At most ${METADATA_KEYS_MAX} keys; set a key to "" to remove it.` },
    ]);
  }
  return merged;
}
