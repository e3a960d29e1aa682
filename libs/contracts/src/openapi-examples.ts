/**
 * Examples of the OpenAPI document, made from the schemas themselves so they cannot drift from them:
 * one deterministic value per schema, with realistic values chosen by format, pattern and field name.
 * openapi-examples.test.ts validates every example of the built document against its schema.
 */
import type { JsonSchema } from './schemas/common';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const BY_PATTERN: Record<string, string> = {
  '^[0-9a-f]{64}$': 'a3f1c2d4e5b60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90',
  '^#[0-9A-Fa-f]{6}$': '#1F6FEB',
  '^whsec_[A-Za-z0-9_+/=-]+$': 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  '^[0-9]{4}$': '2026',
};

/** Free-text fields by name: what a reader expects to see there. */
const BY_NAME: Record<string, string> = {
  processor: 'stripe',
  invoice_status: 'open',
  event_type: 'invoice.posted',
  field: '/name',
  issue: 'required',
  id: 'evt_1PqR2sT3uV4wX5yZ6a7B8c9D',
  type: 'payment_intent.succeeded',
  reversal_reason: 'Entered twice by mistake',
  disabled_reason: 'Deliveries failed for 3 days',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  error: 'connect ECONNREFUSED',
  response_body: 'ok',
  file_name: 'receipt-2026-03.pdf',
  filename: 'receipt-2026-03.pdf',
  source: 'api',
  business_name: 'Acme Corporation',
  payment_instructions: 'Pay by ACH to account 000123456789, routing 021000021.',
  default_terms: 'Net 30',
  default_memo: 'Thank you for your business.',
  footer: 'Acme Corporation, 1 Market St, San Francisco CA',
  code: '1100',
  account_code: '1100',
  subtype: 'accounts_receivable',
  source_type: 'invoice',
};

/** A string by its field name: what a reader expects to see there. */
function namedString(key: string): string | undefined {
  if (Object.hasOwn(BY_NAME, key)) return BY_NAME[key];
  if (key === 'currency') return 'USD';
  if (key.startsWith('external_') && key.endsWith('_id')) return `${key.slice(9, -3)}_1001`;
  if (key === 'email' || key.endsWith('_email')) return 'billing@acme.example';
  if (key === 'name' || key === 'display_name' || key === 'legal_name') return 'Acme Corporation';
  if (key === 'description') return 'Consulting services, March';
  if (key === 'url' || key.endsWith('_url')) return 'https://app.example.com/webhooks/accounting';
  if (key.endsWith('_number')) return 'INV-1001';
  if (key === 'memo' || key === 'note' || key === 'notes' || key === 'reason') return 'Agreed with the customer';
  if (key === 'message') return 'No such record.';
  return undefined;
}

/** A fixed uuid per field name, so the same record id reads the same across an operation's examples. */
function uuidFor(key: string): string {
  let h = 2166136261;
  for (const c of key) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  const hex = h.toString(16).padStart(8, '0');
  return `${hex}-4b6e-4c1a-9f3d-${(hex + hex).slice(0, 12)}`;
}

function stringOf(s: JsonSchema, key: string): string {
  if (typeof s.pattern === 'string' && BY_PATTERN[s.pattern]) return BY_PATTERN[s.pattern]!;
  switch (s.format) {
    case 'uuid':
      return uuidFor(key === 'data' || key === '' ? 'id' : key);
    case 'date':
      return key.includes('due') ? '2026-03-31' : '2026-03-01';
    case 'date-time':
      return '2026-03-01T12:00:00Z';
    case 'email':
      return 'billing@acme.example';
    case 'uri':
      return 'https://app.example.com/webhooks/accounting';
  }
  if (s.pattern === '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$') return uuidFor(key);
  let v = namedString(key) ?? (key ? key.replace(/_/g, ' ') : 'text');
  const min = (s.minLength as number | undefined) ?? 0;
  const max = (s.maxLength as number | undefined) ?? Infinity;
  while (v.length < min) v += 'x';
  return v.slice(0, max);
}

function numberOf(s: JsonSchema, key: string, integer: boolean): number {
  const min = (s.minimum as number | undefined) ?? (s.exclusiveMinimum !== undefined ? (s.exclusiveMinimum as number) + 1 : undefined);
  const max = (s.maximum as number | undefined) ?? (s.exclusiveMaximum !== undefined ? (s.exclusiveMaximum as number) - 1 : undefined);
  let v = key.endsWith('_cents') ? 125000 : key === 'limit' ? 25 : key === 'quantity' ? 2 : key.includes('rate') ? 0.0825 : 1;
  if (integer) v = Math.round(v);
  if (min !== undefined && v < min) v = min;
  if (max !== undefined && v > max) v = max;
  return v;
}

/** One value of schema s (a property named key): `all` includes optional properties too (a response shows them all). */
export function exampleOf(s: JsonSchema | undefined, key = '', all = true, refs: Record<string, JsonSchema> = {}): Json {
  if (!s || typeof s !== 'object') return null;
  if (typeof s.$ref === 'string') {
    const target = refs[s.$ref.replace('#/components/schemas/', '')];
    return target ? exampleOf(target, key, all, refs) : {};
  }
  if (s.const !== undefined) return s.const as Json;
  if (Array.isArray(s.enum)) {
    const named = namedString(key);
    return (named !== undefined && s.enum.includes(named) ? named : s.enum.find((e) => e !== null)) as Json;
  }
  for (const k of ['anyOf', 'oneOf'] as const) {
    const branches = s[k] as JsonSchema[] | undefined;
    if (branches) return exampleOf(branches.find((b) => b.type !== 'null') ?? branches[0], key, all, refs);
  }
  if (Array.isArray(s.allOf)) return exampleOf(Object.assign({}, ...(s.allOf as JsonSchema[])) as JsonSchema, key, all, refs);
  const types = ([] as string[]).concat((s.type as string | string[] | undefined) ?? (s.properties ? 'object' : 'string'));
  const type = types.find((t) => t !== 'null') ?? 'null';
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return key === 'has_more' ? false : true;
    case 'integer':
    case 'number':
      return numberOf(s, key, type === 'integer');
    case 'string':
      return s.contentEncoding ? '' : stringOf(s, key);
    case 'array': {
      const n = Math.max(1, (s.minItems as number | undefined) ?? 1);
      const item = exampleOf(s.items as JsonSchema, singular(key), all, refs);
      return Array.from({ length: n }, () => item);
    }
    default: {
      const props = (s.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((s.required ?? []) as string[]);
      const out: Record<string, Json> = {};
      for (const [k, p] of Object.entries(props)) if (all || required.has(k)) out[k] = exampleOf(p, k, all, refs);
      // Metadata: one pair, as an app would keep its own id there.
      if (key === 'metadata' && !s.properties && s.additionalProperties) out.crm_id = 'acct_4412';
      if (key === 'pagination' && typeof out.count === 'number') out.count = 1;
      return out;
    }
  }
}

const singular = (key: string) => (key.endsWith('ies') ? `${key.slice(0, -3)}y` : key.endsWith('s') ? key.slice(0, -1) : key);
