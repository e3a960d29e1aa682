/**
 * HTTP fuzz cases generated from the route table (fast-check), the raw client that sends them
 * byte for byte, and the checks every answer must pass. Nothing here names a route: a new route in
 * ROUTES is fuzzed through its schemas without new code (SCHEMA_HINTS only help reach deeper).
 */
import http from 'node:http';
import querystring from 'node:querystring';
import fc from 'fast-check';
import { ERROR_CODES, HTTP_STATUS_BY_CODE, ROUTES, type RouteDef, compileBody } from '@acct/contracts';
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

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const fakeKey = (env: string) => fc.array(fc.constantFrom(...BASE62), { minLength: 40, maxLength: 40 }).map((a) => `svc_${env}_${a.join('')}`);

/** Raw path segments: percent-encoded junk, traversal, overlong, an encoded lone surrogate. */
const PATH_JUNK = [
  '%00',
  '%',
  '%zz',
  '%E0%A4%A',
  '%ED%A0%80',
  '%C0%AF',
  '..',
  '.',
  '%2e%2e',
  '%2F',
  '%252F',
  'a%20b',
  '%uD800',
  '%F0%9F%98%80',
  '',
  'x'.repeat(3000),
  '00000000-0000-0000-0000-000000000000%00',
  ';',
  '@',
  '%5B%5D',
  '%0A',
  '%EF%BB%BF',
];

/** Raw query pieces: hex, padded and scientific numbers, repeats, bracket syntax, scope fields, bad escapes. */
const QUERY_JUNK = [
  'limit=0x10',
  'limit=%20%205',
  'limit=1e1',
  'limit=5.0',
  'limit=+5',
  'limit=-0',
  'limit=',
  'limit',
  'limit=1&limit=2',
  'limit[]=1',
  'limit[a]=1',
  'offset=99999999999999999999',
  'offset=9007199254740993',
  'limit=NaN',
  'limit=Infinity',
  'limit=%00',
  '%00=1',
  '=1',
  '&&&',
  'a=%',
  'a=%zz',
  'a=%E0%A4%A',
  'status=%ED%A0%80',
  'organization_id=00000000-0000-4000-8000-000000000000',
  'environment=live',
  'mode=live',
  'connected_app_id=x',
  'customer_id=%00',
  'processor=%00',
  `processor=${'x'.repeat(5000)}`,
  '__proto__=1',
  'constructor=1',
  'hasOwnProperty=1',
  'toString=x',
  'status=open%00',
  'processor=%ud800',
  'processor=%F0%9F%98%80',
  'limit=%EF%BC%95',
];

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=nope',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'application/JSON',
  'application/json;;;',
  'application/json, text/plain',
  '*/*',
  'json',
  '',
];

/** Whole bodies that are not the object a route wants, or not JSON at all. */
function junkBodies(): fc.Arbitrary<[string, string]> {
  const deep = (n: number, inside = 'name') => `{"${inside}":${'['.repeat(n)}${']'.repeat(n)}}`;
  const deepObj = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  return fc.oneof(
    fc.constantFrom<[string, string]>(
      ['empty', ''],
      ['open-brace', '{'],
      ['bad-value', '{"a":}'],
      ['single-quotes', "{'a':1}"],
      ['trailing-comma', '{"a":1,}'],
      ['null', 'null'],
      ['true', 'true'],
      ['number', '1'],
      ['string', '"str"'],
      ['array', '[]'],
      ['array-of-object', '[{}]'],
      ['bom', '\ufeff{}'],
      ['two-objects', '{"a":1}{"b":2}'],
      ['whitespace', `${' '.repeat(1000)}{}`],
      ['proto', '{"__proto__":{"admin":true}}'],
      ['constructor', '{"constructor":{"prototype":{"x":1}}}'],
      ['nan', '{"a":NaN}'],
      ['comment', '{/* c */}'],
      ['nul-escape', '{"a":"\\u0000"}'],
      ['raw-control', '{"a":"\u0001\u0002"}'],
      ['bad-escape', '{"a":"\\x41"}'],
      ['big-array', `[${'0,'.repeat(200_000)}0]`],
    ),
    fc.constantFrom(10, 100, 1000, 1900, 2500, 3000, 5000, 20_000, 100_000).map((n): [string, string] => [`deep-${n}`, deep(n)]),
    fc.constantFrom(1000, 1900, 3000, 10_000).map((n): [string, string] => [`deep-object-${n}`, deepObj(n)]),
    fc
      .constantFrom(1000, 1900, 2500, 5000)
      .map((n): [string, string] => [
        `deep-payload-${n}`,
        `{"event_type":"customer.created","external_event_id":"deep-${n}-${Date.now()}","payload":{"a":${'['.repeat(n)}${']'.repeat(n)}}}`,
      ]),
    // Replaced by the case's own body with its first key repeated.
    fc.constant<[string, string]>(['duplicate-key', '{"a":1,"a":2}']),
    fc.constant<[string, string]>(['over-limit', `{"name":"${'x'.repeat(1024 * 1024 + 10)}"}`]),
  );
}

function safeParse(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
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

const OTHER_METHODS = ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'GET', 'POST'];

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

/** Bracket depth of a JSON text, outside strings (also for text that is not valid JSON). */
export function nestingDepth(text: string | undefined): number {
  if (!text) return 0;
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') max = Math.max(max, ++depth);
    else if (ch === ']' || ch === '}') depth--;
  }
  return max;
}

/**
 * Node's HTTP server answers a request head over 16 KiB with a bare 431 (no envelope, no
 * Request-Id) before the gateway sees it (reported, not the gateway's to fix here): the generated
 * path and query values stay under 4,000 characters each.
 */
function capped(encoded: string): string {
  return encoded.length <= 4000 ? encoded : encoded.slice(0, 4000).replace(/%[0-9A-Fa-f]?$/, '');
}

/** encodeURIComponent, also for a lone surrogate (sent as its UTF-8 replacement, as a browser would). */
export function pct(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function stringsOf(v: unknown, out: string[], depth = 0): void {
  if (depth > 200) return;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => stringsOf(x, out, depth + 1));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      stringsOf(x, out, depth + 1);
    }
  }
}

export function viewOf(c: FuzzCase): FuzzView {
  const q = c.target.indexOf('?');
  const query = q < 0 ? {} : (querystring.parse(c.target.slice(q + 1)) as FuzzView['query']);
  const pathOnly = q < 0 ? c.target : c.target.slice(0, q);
  const params: Record<string, string> = {};
  const tpl = c.route.path.split('/');
  const got = pathOnly.split('/');
  tpl.forEach((seg, i) => {
    const m = /^\{(.+)\}$/.exec(seg);
    if (m && got[i] !== undefined) params[m[1]!] = decode(got[i]);
  });
  const body = safeParse(c.bodyText);
  const strings: string[] = [...Object.values(params)];
  stringsOf(query, strings);
  stringsOf(body, strings);
  return { c, params, query, body, depth: nestingDepth(c.bodyText), strings };
}

/** Sends a case as it is (no URL normalisation, no header rewriting). */
/** One connection per case, so that a case the server leaves half-read cannot stall the next one. */
export function send(base: string, c: FuzzCase): Promise<FuzzResponse> {
  const u = new URL(base);
  const body = c.bodyText === undefined ? undefined : Buffer.from(c.bodyText, 'utf8');
  const headers: Record<string, string | number> = { ...c.headers };
  if (body) headers['content-length'] = body.length;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method: c.method, path: c.target, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: safeParse(text) });
      });
      res.on('error', reject);
    });
    req.setTimeout(15_000, () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', reject);
    req.end(body);
  });
}

/** Text no answer may carry: stack traces, raw database errors or SQL, file-system paths, keys. */
export const LEAKS: { kind: string; re: RegExp }[] = [
  { kind: 'stack_trace', re: /\n\s{1,20}at \S[^\n]{0,500}:\d+:\d+|\bat (?:async )?[\w.$<>[\]]{1,200} \([^)\s]{0,500}:\d+:\d+\)/ },
  {
    kind: 'sql_error',
    re: /duplicate key value violates|violates (?:unique|foreign key|check|not-null|exclusion) constraint|relation "[^"]+" does not exist|syntax error at or near|invalid input (?:syntax|value) for|invalid byte sequence for encoding|column "[^"]+" (?:of relation|does not exist)|out of range for type|unsupported Unicode escape sequence/i,
  },
  { kind: 'sql_statement', re: /\bselect\s[^\n]{1,200}?\sfrom\s+"?[a-z_]+"?\.?|\binsert\s+into\s+"?[a-z_]|\bupdate\s+"?[a-z_]+"?\s+set\s|\bdelete\s+from\s+"?[a-z_]/i },
  {
    kind: 'driver',
    re: /\b(?:DriverException|QueryFailedError|\w+ConstraintViolationException|PostgreSqlDriver|MikroORM|ECONNREFUSED|RangeError|TypeError|SyntaxError|ReferenceError)\b/,
  },
  { kind: 'file_path', re: /(?:^|[\s"'(=:])\/(?:home|usr|etc|tmp|var|opt|root|work|srv|app|proc)\/[^\s"']*|node_modules|\b[\w-]{1,100}\.(?:ts|js|mjs|cjs):\d+|[A-Za-z]:\\[\w\\]/ },
  { kind: 'api_key', re: /svc_(?:test|live)_[0-9A-Za-z]{8,}/ },
  { kind: 'key_hash', re: /\b[0-9a-f]{64}\b/ },
];

function withoutDigests(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutDigests);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => k !== 'sha256')
        .map(([k, x]) => [k, withoutDigests(x)]),
    );
  return v;
}

/** The leaks in an answer, after removing what the request itself sent (an echo is not a leak). */
export function leaksIn(res: FuzzResponse, v: FuzzView, secrets: readonly string[]): string[] {
  const sent = v.strings.filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  const texts: string[] = [];
  // A document's `sha256` is its published checksum, not a key hash.
  if (res.json !== undefined) stringsOf(withoutDigests(res.json), texts);
  else texts.push(res.text);
  const found = new Set<string>();
  for (let t of texts) {
    for (const s of sent) if (t.includes(s)) t = t.split(s).join(' ');
    for (const { kind, re } of LEAKS) if (re.test(t)) found.add(kind);
    for (const s of secrets) if (t.includes(s)) found.add('secret');
  }
  return [...found];
}

function routePattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}/?$`);
}

const validators = new Map<JsonSchema, ReturnType<typeof compileBody>>();
function validatorOf(schema: JsonSchema) {
  let v = validators.get(schema);
  if (!v) validators.set(schema, (v = compileBody(schema)));
  return v;
}

/** Every property an answer must have, whatever was sent (5xx handled by the caller). */
export function problemsOf(res: FuzzResponse, v: FuzzView, secrets: readonly string[]): string[] {
  const problems: string[] = [];
  const rid = res.headers['request-id'];
  if (!rid) problems.push('no Request-Id header');
  if (res.status >= 400) {
    const e = res.json?.error;
    const codeOk = e && (ERROR_CODES as readonly string[]).includes(e.code);
    const statusOk =
      codeOk &&
      (HTTP_STATUS_BY_CODE[e.code as keyof typeof HTTP_STATUS_BY_CODE] === res.status ||
        (e.code === 'validation_failed' && (res.status === 405 || res.status === 413 || res.status === 415)));
    const detailsOk =
      e && Array.isArray(e.details) && e.details.every((d: any) => d && typeof d.field === 'string' && typeof d.issue === 'string' && typeof d.message === 'string');
    if (!res.json || Object.keys(res.json).join() !== 'error' || !e || typeof e.message !== 'string' || !e.message || !detailsOk || !codeOk) {
      problems.push(`not the error envelope: ${res.text.slice(0, 200)}`);
    } else {
      if (!statusOk) problems.push(`status ${res.status} does not match error code ${e.code}`);
      if (e.request_id !== rid) problems.push(`request_id ${e.request_id} is not the Request-Id header ${String(rid)}`);
      if (res.status === 405 && !res.headers.allow) problems.push('405 without an Allow header');
    }
    if (!/^application\/json\b/.test(res.headers['content-type'] ?? '')) problems.push(`error Content-Type ${res.headers['content-type']}`);
  } else if (res.status >= 200 && res.status < 300) {
    // The routes this method and path match (e.g. /payments/ with an empty id is the list route).
    const pathOnly = v.c.target.split('?')[0]!;
    const matched = ROUTES.filter((r) => r.method === v.c.method && routePattern(r.path).test(pathOnly));
    const schemas = matched.flatMap((r) => r.responses).filter((r) => r.status === res.status && r.schema.type !== 'string');
    if (!matched.length) problems.push(`${res.status} for a method and path no route has`);
    if (schemas.length && !schemas.some((r) => validatorOf(r.schema)(res.json))) {
      problems.push(`${res.status} body does not match its response schema: ${JSON.stringify(validatorOf(schemas[0]!.schema).errors?.slice(0, 3))}`);
    }
  }
  const leaks = leaksIn(res, v, secrets);
  if (leaks.length) problems.push(`leaks ${leaks.join(', ')}`);
  return problems;
}

/** A case in a few lines, keys replaced by their names, long text cut. */
export function describeCase(c: FuzzCase, keys: Principals): string {
  const redact = (s: string) => s.split(keys.testKey).join('<test key>').split(keys.liveKey).join('<live key>').split(keys.otherKey).join('<other org key>');
  const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
  const body = c.bodyText === undefined ? '' : `\n  body: ${cut(JSON.stringify(c.bodyText), 600)}`;
  return `${c.method} ${cut(c.target, 300)} [${c.route.operationId}] {${c.tags.join(' ')}}\n  headers: ${redact(JSON.stringify(c.headers))}${body}`;
}
