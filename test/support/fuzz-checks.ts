/** What every fuzz answer must be: the raw client that sends a case byte for byte, and the checks of its answer. */
import http from 'node:http';
import querystring from 'node:querystring';
import { ERROR_CODES, HTTP_STATUS_BY_CODE, ROUTES, compileBody } from '@acct/contracts';
import type { FuzzCase, FuzzResponse, FuzzView, Principals } from './fuzz-cases';
import { decode, nestingDepth, safeParse, stringsOf } from './fuzz-text';
import type { JsonSchema } from './schema-arbitraries';

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

/** Members that publish a SHA-256 on purpose: a document's checksum, a journal chain's head (and an entry's) hash. */
const PUBLISHED_DIGESTS = new Set(['sha256', 'head_hash', 'hash']);

function withoutDigests(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutDigests);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !PUBLISHED_DIGESTS.has(k))
        .map(([k, x]) => [k, withoutDigests(x)]),
    );
  return v;
}

/** The leaks in an answer, after removing what the request itself sent (an echo is not a leak). */
export function leaksIn(res: FuzzResponse, v: FuzzView, secrets: readonly string[]): string[] {
  const sent = v.strings.filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  const texts: string[] = [];
  // A document's `sha256` and a chain's `head_hash` are published digests, not key hashes.
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

/** Operations whose answer is the static documentation, not data: left out of the leak scan. */
const PUBLISHED_DOCUMENTATION = new Set(['getOpenApi', 'getOpenApiJson', 'getDevelopersPage', 'getDevelopersScript']);

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
  // The published documentation (the OpenAPI document, the reference page and its script) is the same
  // text for everyone: its examples hold digests and error texts on purpose, and nothing of a request.
  if (PUBLISHED_DOCUMENTATION.has(v.c.route.operationId)) return problems;
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
