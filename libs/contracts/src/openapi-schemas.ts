/**
 * The schemas of the OpenAPI document: a request schema with the gateway's own input rules written
 * as patterns (requestSchema), and the naming of schemas into components.schemas (SchemaNames).
 */
import type { JsonSchema } from './schemas/common';
import { NO_NUL_PATTERN } from './bad-input';
import { DATE_PATTERN, DATE_TIME_PATTERN } from './dates';

/**
 * A request schema as the document shows it: the rules the gateway checks outside JSON Schema
 * (checkInput, the date range of the date formats) written as patterns, and `x-openapi` (a rule a
 * service checks with its own message, e.g. USD only) merged in. The gateway validates with the
 * schema itself; this only says the same thing in a form every validator reads.
 */
export function requestSchema(schema: JsonSchema): JsonSchema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const { 'x-openapi': overlay, ...rest } = node as JsonSchema & { 'x-openapi'?: JsonSchema };
    const out: JsonSchema = { ...rest, ...overlay };
    for (const k of ['properties', 'patternProperties', '$defs']) {
      if (out[k] && typeof out[k] === 'object') out[k] = Object.fromEntries(Object.entries(out[k] as JsonSchema).map(([n, v]) => [n, walk(v)]));
    }
    for (const k of ['items', 'additionalProperties', 'anyOf', 'oneOf', 'allOf', 'prefixItems', 'not']) {
      if (out[k] && typeof out[k] === 'object') out[k] = walk(out[k]);
    }
    const types = ([] as unknown[]).concat(out.type ?? []);
    const isString = types.includes('string') || (out.type === undefined && typeof out.format === 'string');
    if (isString && out.pattern === undefined && out.enum === undefined && out.const === undefined && out.contentEncoding === undefined) {
      if (out.format === 'date') out.pattern = DATE_PATTERN;
      else if (out.format === 'date-time') out.pattern = DATE_TIME_PATTERN;
      else if (out.format === undefined) out.pattern = NO_NUL_PATTERN;
    }
    // A free-form object (an event's payload): no key or string in it may hold U+0000 either.
    if (types.includes('object') && out.properties === undefined && out.additionalProperties === undefined) {
      out.propertyNames = { pattern: NO_NUL_PATTERN };
      out.additionalProperties = { $ref: '#/components/schemas/JsonValue' };
    }
    return out;
  };
  return walk(schema) as JsonSchema;
}

/** Any JSON value with no U+0000 in a string or key (the inside of a free-form object). */
export const jsonValueSchema: JsonSchema = {
  description: 'Any JSON value; no string or key in it may hold U+0000 or a lone surrogate.',
  pattern: NO_NUL_PATTERN,
  propertyNames: { pattern: NO_NUL_PATTERN },
  items: { $ref: '#/components/schemas/JsonValue' },
  additionalProperties: { $ref: '#/components/schemas/JsonValue' },
};

export const pascal = (s: string) => s.replace(/(^|[._\s-])(\w)/g, (_m, _p, c: string) => c.toUpperCase());

/**
 * The named schemas of the document (components.schemas): a schema is named once, and every later
 * occurrence of the same content, whole or nested in another named schema, becomes a $ref to it.
 * The TypeBox declarations stay as they are (the gateway compiles them with no $id): naming happens here.
 */
export class SchemaNames {
  readonly components: Record<string, JsonSchema> = {};
  private readonly byContent = new Map<string, string>();

  /** A $ref to s, named `name` unless the same content is named already. */
  ref(s: JsonSchema, name: string): JsonSchema {
    const key = JSON.stringify(s);
    let n = this.byContent.get(key);
    if (!n) {
      n = name;
      for (let i = 2; this.components[n]; i++) n = `${name}${i}`;
      this.components[n] = this.inner(s);
      this.byContent.set(key, n);
    }
    return { $ref: `#/components/schemas/${n}` };
  }

  /** Names a schema without a $ref to it (one written by hand). */
  put(name: string, s: JsonSchema): void {
    this.components[name] = s;
  }

  /** s with every named sub-schema as a $ref. */
  inner(s: JsonSchema): JsonSchema {
    const sub = (v: unknown): unknown => {
      if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
      const n = this.byContent.get(JSON.stringify(v));
      return n ? { $ref: `#/components/schemas/${n}` } : this.inner(v as JsonSchema);
    };
    const out: JsonSchema = { ...s };
    for (const k of ['properties', 'patternProperties', '$defs']) {
      if (out[k] && typeof out[k] === 'object') out[k] = Object.fromEntries(Object.entries(out[k] as JsonSchema).map(([n, v]) => [n, sub(v)]));
    }
    for (const k of ['items', 'additionalProperties', 'not']) if (out[k] && typeof out[k] === 'object') out[k] = sub(out[k]);
    for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) if (Array.isArray(out[k])) out[k] = (out[k] as unknown[]).map(sub);
    return out;
  }
}
