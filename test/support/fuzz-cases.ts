/**
 * HTTP fuzz cases generated from the route table (fast-check); the raw client that sends them byte
 * for byte and the checks every answer must pass are in fuzz-checks.ts. Nothing here names a route:
 * a new route in ROUTES is fuzzed through its schemas without new code (SCHEMA_HINTS only help
 * reach deeper).
 */
import type http from 'node:http';
import fc from 'fast-check';
import { type RouteDef } from '@acct/contracts';
import { CONTENT_TYPES, OTHER_METHODS, PATH_JUNK, QUERY_JUNK, fakeKey, junkBodies } from './fuzz-junk';
import { capped, pct, safeParse } from './fuzz-text';
import { type GenOptions, type JsonSchema, RawJson, arbitraryFor, poisonOne, toJsonText } from './schema-arbitraries';

export interface FuzzCase {
  route: RouteDef;
  method: string;
  /** Path and query exactly as sent (percent-encoded, ASCII). */
  target: string;
  headers: Record<string, string>;
  bodyText?: string;
  /** What the generator did: 'auth:none', 'body:deep-3000', 'ct:text/plain', ... */
  tags: string[];
}

/** What the server sees of a case, decoded: for predicates and for leak checks. */
export interface FuzzView {
  c: FuzzCase;
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  /** The body as JSON.parse reads it (undefined when it is not JSON). */
  body: unknown;
  /** Deepest bracket nesting of the body text. */
  depth: number;
  /** Every string of path params, query (keys and values) and body (keys and values). */
  strings: string[];
}

export interface FuzzResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

export interface Principals {
  testKey: string;
  liveKey: string;
  otherKey: string;
}

/** Real values by field name (customer_id, invoice_id, external_invoice_id, ...), fed from answers. */
export class Pools {
  private readonly byField = new Map<string, string[]>();
  known = (field: string): readonly string[] => this.byField.get(field) ?? [];
  all = (): string[] => [...this.byField.entries()].filter(([k]) => !k.startsWith('external_')).flatMap(([, v]) => v);
  add(field: string, v: string): void {
    const list = this.byField.get(field) ?? [];
    if (!list.includes(v) && list.length < 200) list.push(v);
    this.byField.set(field, list);
  }
  /** Ids and references of a success body: {customer: {id}} → customer_id, *_id fields as they are. */
  harvest(json: unknown, name?: string): void {
    if (Array.isArray(json)) return json.forEach((x) => this.harvest(x, name));
    if (!json || typeof json !== 'object') return;
    for (const [k, v] of Object.entries(json as Record<string, unknown>)) {
      if (k === 'id' && name && typeof v === 'string') this.add(`${name}_id`, v);
      else if (/_id$/.test(k) && typeof v === 'string') this.add(k, v);
      else if (v && typeof v === 'object' && k !== 'data' && k !== 'pagination' && k !== 'action') this.harvest(v, singular(k));
    }
  }
}

/** customers → customer, processor-payouts → processor_payout. */
export function singular(name: string): string {
  return name.replace(/-/g, '_').replace(/s$/, '');
}

/** The pool name of a route's path parameter: /api/v1/invoices/{id} → invoice_id. */
export function paramPool(path: string, param: string): string {
  const before = path.slice(0, path.indexOf(`{${param}}`)).replace(/\/$/, '');
  const seg = before.slice(before.lastIndexOf('/') + 1);
  return param === 'id' ? `${singular(seg)}_id` : param;
}

/** A query value as text: numbers as written, arrays as repeated keys. */
function queryPairs(q: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    const vals = Array.isArray(v) ? v : [v];
    for (const x of vals) {
      const text = x instanceof RawJson ? x.text : typeof x === 'object' && x !== null ? JSON.stringify(x) : String(x);
      out.push(`${pct(k)}=${capped(pct(text))}`);
    }
  }
  return out;
}

/** `arb` in `percent` % of the cases, null otherwise. */
function sometimes<T>(percent: number, arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: 100 - percent, arbitrary: fc.constant(null) }, { weight: percent, arbitrary: arb });
}

export interface CaseOptions {
  keys: Principals;
  pools: Pools;
  /** Optional alternative schemas per operationId and JSON pointer of the body. */
  hints?: Record<string, Record<string, JsonSchema[]>>;
}

/** One fuzz case for `route`. */
export function caseArbitrary(route: RouteDef, o: CaseOptions): fc.Arbitrary<FuzzCase> {
  const gen = (hints?: Record<string, JsonSchema[]>, hostileWeight = 1): GenOptions => ({ known: o.pools.known, hints, hostileWeight });
  const params = Object.fromEntries(
    [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, p]) => {
      const pool = paramPool(route.path, p!);
      const pick = (all: boolean) =>
        fc.nat().chain((i) => {
          const list = all ? o.pools.all() : o.pools.known(pool);
          return list.length ? fc.constant(list[i % list.length]!) : fc.uuid();
        });
      return [
        p!,
        fc.oneof(
          { weight: 8, arbitrary: pick(false).map((v) => ({ raw: v, tag: 'real' })) },
          { weight: 2, arbitrary: fc.uuid().map((v) => ({ raw: v, tag: 'random' })) },
          { weight: 1, arbitrary: pick(true).map((v) => ({ raw: v, tag: 'other-kind' })) },
          { weight: 2, arbitrary: fc.constantFrom(...PATH_JUNK).map((v) => ({ raw: v, tag: 'junk' })) },
          {
            weight: 1,
            arbitrary: arbitraryFor({ type: 'string' }, { known: o.pools.known, hostileWeight: 20 }).map((v) => ({
              raw: capped(pct(typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null'))),
              tag: 'hostile',
            })),
          },
        ),
      ];
    }),
  );
  const paramsArb = fc.record(params);
  // Clean (every value passes its schema, so handlers go deep), one leaf poisoned, or hostile anywhere.
  const mix = (schema: JsonSchema, hints?: Record<string, JsonSchema[]>) => {
    const clean = arbitraryFor(schema, gen(hints, 0));
    return fc.oneof({ weight: 4, arbitrary: clean }, { weight: 3, arbitrary: poisonOne(clean) }, { weight: 3, arbitrary: arbitraryFor(schema, gen(hints, 2)) });
  };
  const queryArb = route.query ? mix(route.query) : fc.constant({});
  const hasBody = route.method === 'POST' || route.method === 'PUT';
  const bodySchema = route.body ?? { type: 'object', properties: {}, required: [], additionalProperties: false };
  const hints = o.hints?.[route.operationId];
  const bodyArb = hasBody ? mix(bodySchema, hints) : fc.constant(undefined);
  const auth = fc.oneof(
    { weight: 30, arbitrary: fc.constant<[string, string | undefined]>(['ok', `Bearer ${o.keys.testKey}`]) },
    {
      weight: 4,
      arbitrary: fc.oneof(
        fc.constant<[string, string | undefined]>(['none', undefined]),
        fc.constant<[string, string | undefined]>(['bearer-only', 'Bearer']),
        fakeKey('test').map((k): [string, string] => ['unknown-key', `Bearer ${k}`]),
        fc.constant<[string, string | undefined]>(['short-key', 'Bearer svc_live_short']),
        fc.constant<[string, string | undefined]>(['basic', 'Basic dXNlcjpwYXNzd29yZA==']),
        fc.constant<[string, string | undefined]>(['lowercase-bearer', `bearer ${o.keys.testKey}`]),
        fc.constant<[string, string | undefined]>(['trailing-word', `Bearer ${o.keys.testKey} extra`]),
        fc.constant<[string, string | undefined]>(['key-plus-char', `Bearer ${o.keys.testKey}x`]),
        fc.constant<[string, string | undefined]>(['other-org', `Bearer ${o.keys.otherKey}`]),
        fc.constant<[string, string | undefined]>(['live-key', `Bearer ${o.keys.liveKey}`]),
        fc.constant<[string, string | undefined]>(['long', `Bearer ${'a'.repeat(5000)}`]),
      ),
    },
  );
  return fc
    .record({
      params: paramsArb,
      query: queryArb,
      queryJunk: sometimes(15, fc.constantFrom(...QUERY_JUNK)),
      body: bodyArb,
      bodyJunk: sometimes(12, junkBodies()),
      contentType: sometimes(7, fc.constantFrom(...CONTENT_TYPES)),
      contentEncoding: sometimes(3, fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-nope')),
      idempotencyKey: sometimes(15, fc.oneof(fc.uuid(), fc.constant('k'.repeat(256)), fc.constant(''))),
      requestId: sometimes(8, fc.constantFrom('fuzz-1', 'bad id with spaces', 'x'.repeat(200))),
      auth,
      otherMethod: sometimes(4, fc.constantFrom(...OTHER_METHODS)),
    })
    .map((g): FuzzCase => {
      const tags: string[] = [];
      let path = route.path;
      for (const [p, v] of Object.entries(g.params)) {
        path = path.replace(`{${p}}`, v.raw);
        tags.push(`param:${v.tag}`);
      }
      const pairs = queryPairs((g.query ?? {}) as Record<string, unknown>);
      if (g.queryJunk !== null) {
        pairs.push(g.queryJunk);
        tags.push(`query:${g.queryJunk.slice(0, 30)}`);
      }
      const target = pairs.length ? `${path}?${pairs.join('&')}` : path;
      const method = g.otherMethod ?? route.method;
      if (g.otherMethod) tags.push(`method:${g.otherMethod}`);
      const headers: Record<string, string> = {};
      tags.push(`auth:${g.auth[0]}`);
      if (g.auth[1] !== undefined) headers.authorization = g.auth[1];
      let bodyText = hasBody ? toJsonText(g.body) : undefined;
      if (g.bodyJunk !== null && (hasBody || g.bodyJunk[0] === 'nul-escape')) {
        bodyText = g.bodyJunk[0] === 'duplicate-key' && bodyText ? junkDuplicate(bodyText) : g.bodyJunk[1];
        tags.push(`body:${g.bodyJunk[0]}`);
      }
      if (bodyText !== undefined) headers['content-type'] = 'application/json';
      if (g.contentType !== null) {
        if (g.contentType === '') delete headers['content-type'];
        else headers['content-type'] = g.contentType;
        tags.push(`ct:${g.contentType || 'none'}`);
      }
      if (g.contentEncoding !== null && bodyText !== undefined) {
        headers['content-encoding'] = g.contentEncoding;
        tags.push(`ce:${g.contentEncoding}`);
      }
      if (g.idempotencyKey !== null && method === 'POST') {
        headers['idempotency-key'] = g.idempotencyKey;
        tags.push('idempotency-key');
      }
      if (g.requestId !== null) headers['x-request-id'] = g.requestId;
      return { route, method, target, headers, bodyText, tags };
    });
}

function junkDuplicate(text: string): string {
  const parsed = safeParse(text);
  const first = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.keys(parsed)[0] : undefined;
  return first && text.endsWith('}') ? `${text.slice(0, -1)},${JSON.stringify(first)}:"dup"}` : '{"a":1,"a":2}';
}
