/**
 * Parts of the OpenAPI document that are not about one route: the typing of union branches for code
 * generators, the request samples of each operation (x-codeSamples) and the introduction.
 */
import type { JsonSchema } from './schemas/common';

/**
 * A copy of a part of the document where each anyOf/oneOf branch that names no type of its own
 * (`{format: 'date'}` under a string) has its parent's: the branches say the same to a validator,
 * and a code generator (openapi-typescript) types the value as that type, not `string | unknown`.
 */
export function typedBranches<T>(node: T, parentType?: unknown): T {
  if (Array.isArray(node)) return (node as unknown[]).map((v) => typedBranches(v, parentType)) as T;
  if (!node || typeof node !== 'object') return node;
  const o = node as JsonSchema;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(o)) out[k] = typedBranches(v, (k === 'anyOf' || k === 'oneOf') && typeof o.type === 'string' ? o.type : undefined);
  // Called on an anyOf/oneOf array's items only: parentType is set there and nowhere else.
  if (parentType !== undefined && out.type === undefined && out.$ref === undefined) out.type = parentType;
  return out as T;
}
