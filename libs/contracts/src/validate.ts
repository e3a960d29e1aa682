import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { isCalendarDate, isDateTime } from './dates';
import type { ErrorDetail } from './errors';
import { type JsonSchema, UUID_PATTERN } from './schemas/common';

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, coerceTypes: coerce, useDefaults: coerce, strict: false });
  addFormats(ajv, ['email', 'uri']);
  // Ids: the hyphenated 8-4-4-4-12 form only (ajv-formats' uuid also takes `urn:uuid:…`, which
  // Postgres refuses); either case, lower-cased at the edge by canonicalUuids below.
  ajv.addFormat('uuid', { type: 'string', validate: (s: string) => UUID.test(s) });
  // Dates are the API's own: real calendar dates in limits.date_min … date_max (see dates.ts).
  ajv.addFormat('date', { type: 'string', validate: isCalendarDate });
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  return ajv;
}

/** A UUID in its canonical spelling's shape, either case: 8-4-4-4-12 hex digits (schemas/common.ts). */
export const UUID = new RegExp(UUID_PATTERN);

type Walkable = {
  format?: string;
  properties?: Record<string, Walkable>;
  items?: Walkable;
  additionalProperties?: unknown;
  anyOf?: Walkable[];
  oneOf?: Walkable[];
  allOf?: Walkable[];
};

/**
 * Lower-cases, in place, every string of `data` that `schema` says is a uuid (format uuid), so an id
 * is stored, compared and echoed in one spelling whichever case the caller sent. Run on data that
 * has passed the schema; returns the (possibly replaced) value.
 */
export function canonicalUuids(schema: JsonSchema, data: unknown): unknown {
  const s = schema as Walkable;
  if (typeof data === 'string')
    return s.format === 'uuid' || [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].some((b) => b.format === 'uuid') ? data.toLowerCase() : data;
  if (!data || typeof data !== 'object') return data;
  for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) canonicalUuids(branch, data);
  if (Array.isArray(data)) {
    if (s.items) for (let i = 0; i < data.length; i++) data[i] = canonicalUuids(s.items, data[i]);
    return data;
  }
  const o = data as Record<string, unknown>;
  const extra = s.additionalProperties && typeof s.additionalProperties === 'object' ? (s.additionalProperties as JsonSchema) : null;
  for (const k of Object.keys(o)) {
    const sub = s.properties && Object.prototype.hasOwnProperty.call(s.properties, k) ? (s.properties[k] as JsonSchema) : extra;
    if (sub) o[k] = canonicalUuids(sub, o[k]);
  }
  return data;
}

/** Bodies: exact types, no coercion. Query strings: coerced ("25" → 25) and defaulted. */
const strictAjv = makeAjv(false);
const queryAjv = makeAjv(true);

export function compileBody(schema: JsonSchema): ValidateFunction {
  return strictAjv.compile(schema);
}
export function compileQuery(schema: JsonSchema): ValidateFunction {
  return queryAjv.compile(schema);
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;
const SIGNED_DECIMAL = /^(0|-?[1-9][0-9]*)$/;

/**
 * Query integers must be plain decimal digits: ajv's coercion would take "0x10", "  5", "1e1" or
 * "+5" as numbers. A sign only where the field allows negatives. Run before the query's validator.
 */
export function queryIntegerDetails(schema: JsonSchema, query: Record<string, unknown>): ErrorDetail[] {
  const props = (schema.properties ?? {}) as Record<string, { type?: unknown; minimum?: unknown }>;
  const out: ErrorDetail[] = [];
  for (const [k, value] of Object.entries(query)) {
    const p = Object.prototype.hasOwnProperty.call(props, k) ? props[k] : undefined;
    if (p?.type !== 'integer' || typeof value !== 'string') continue;
    const nonNegative = typeof p.minimum === 'number' && p.minimum >= 0;
    if (!(nonNegative ? DECIMAL : SIGNED_DECIMAL).test(value)) {
      out.push({ field: k, issue: 'invalid_type', message: `${k} must be a whole number written in decimal digits${nonNegative ? '' : ' (optionally signed)'}.` });
    }
  }
  return out;
}

const ISSUE: Record<string, string> = {
  required: 'required',
  additionalProperties: 'unknown_field',
  format: 'invalid_format',
  maxLength: 'too_long',
  minLength: 'too_short',
  maxItems: 'too_many',
  maxProperties: 'too_many',
  propertyNames: 'invalid_key',
  minItems: 'too_few',
  type: 'invalid_type',
  minimum: 'out_of_range',
  maximum: 'out_of_range',
  exclusiveMinimum: 'out_of_range',
  exclusiveMaximum: 'out_of_range',
  enum: 'invalid_value',
  const: 'invalid_value',
  pattern: 'invalid_format',
  multipleOf: 'invalid_value',
};

/**
 * The errors of an anyOf/oneOf as one: ajv reports each branch that failed at the value's own path
 * (`must be a valid date`, `must be a valid date-time`) and then `must match a schema in anyOf`.
 * Each such group becomes one plain error naming every form the value may take; errors deeper
 * inside a branch (an object's own fields) are left as they are.
 */
function mergeAlternatives(errors: ErrorObject[]): ErrorObject[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  if (unions.length === 0) return errors;
  const unionOf = (e: ErrorObject) => unions.find((u) => u !== e && u.instancePath === e.instancePath && e.schemaPath.startsWith(`${u.schemaPath}/`));
  const merged = new Map<ErrorObject, ErrorObject>();
  for (const u of unions) {
    const branches = errors.filter((e) => unionOf(e) === u);
    const all = (keyword: string, param: string) =>
      branches.length > 0 && branches.every((e) => e.keyword === keyword)
        ? [...new Set(branches.map((e) => String((e.params as Record<string, unknown>)[param])))].join(' or ')
        : undefined;
    const formats = all('format', 'format');
    const types = all('type', 'type');
    if (formats !== undefined) merged.set(u, { ...u, keyword: 'format', params: { format: formats } });
    else if (types !== undefined) merged.set(u, { ...u, keyword: 'type', params: { type: types }, message: `must be ${types}` });
    else merged.set(u, { ...u, message: 'does not take any of the forms it allows' });
  }
  return errors.filter((e) => !unionOf(e)).map((e) => merged.get(e) ?? e);
}

/**
 * ajv errors as `{field, issue, message}`. `asQuery` names fields by parameter name instead of
 * JSON pointer. The failed branches of a oneOf/anyOf make one error (mergeAlternatives).
 */
export function toDetails(errors: ErrorObject[] | null | undefined, asQuery = false): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const seen = new Set<string>();
  // A field whose format and pattern both fail (a uuid) is named by its format, the clearer message.
  const ordered = mergeAlternatives([...(errors ?? [])]).sort((a, b) => Number(a.keyword === 'pattern') - Number(b.keyword === 'pattern'));
  for (const e of ordered) {
    let pointer = e.instancePath;
    if (e.keyword === 'required') pointer += `/${(e.params as { missingProperty: string }).missingProperty}`;
    if (e.keyword === 'additionalProperties') pointer += `/${(e.params as { additionalProperty: string }).additionalProperty}`;
    // A key refused by propertyNames (metadata): the failing rule names the key; the wrapper adds nothing.
    if (e.keyword === 'propertyNames') continue;
    const propertyName = e.propertyName;
    if (propertyName !== undefined) pointer += `/${propertyName.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const field = asQuery ? pointer.replace(/^\//, '') : pointer || '/';
    const issue = ISSUE[e.keyword] ?? 'invalid';
    let message: string;
    switch (e.keyword) {
      case 'required':
        message = `${field} is required.`;
        break;
      case 'additionalProperties':
        message = `${field} is not a known field.`;
        break;
      case 'format':
        message = `${field} must be a valid ${(e.params as { format: string }).format}.`;
        break;
      default:
        message = `${field} ${e.message ?? 'is invalid'}.`;
    }
    const k = `${field}|${issue}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ field, issue, message });
  }
  return out;
}
