/**
 * Real traffic against the OpenAPI document as served: every exchange a test sends through
 * `Conformance.client` is matched to its operation and checked both ways. The response: its status
 * is declared for the operation, its media type is declared for that status, its body validates
 * against the declared schema. The request: one the document calls valid is not refused with 400,
 * and one it calls invalid is not accepted. A method a path lacks must be 405 with an Allow header
 * naming the path's methods; a path the document lacks must be 404. The schemas are the document's
 * own, compiled with ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { client } from './harness';

type Schema = Record<string, unknown>;
interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}
interface Content {
  schema?: Schema;
}
export interface Operation {
  operationId: string;
  parameters?: Param[];
  requestBody?: { required?: boolean; content: Record<string, Content> };
  responses: Record<string, { content?: Record<string, Content>; headers?: Record<string, unknown>; $ref?: string }>;
}
export interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, unknown>;
}

type Api = ReturnType<typeof client>;
type Res = Awaited<ReturnType<Api>>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** The response headers the gateway sets: each must be declared on the response that carries it. */
const GATEWAY_HEADERS = ['request-id', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'idempotent-replayed', 'module-warning'];
const ERROR_REF: Schema = { $ref: '#/components/schemas/Error' };
const mediaOf = (contentType: string | null) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();
const isJson = (media: string) => media === 'application/json' || media.endsWith('+json');

interface Template {
  path: string;
  regex: RegExp;
  names: string[];
  literal: number;
}

/** A status and JSON body seen on the wire. */
export interface RecordedExchange {
  status: number;
  body?: unknown;
}
/** An operation's examples as the tests sent and received them. */
export interface RecordedExample {
  request?: unknown;
  response: RecordedExchange;
  error?: RecordedExchange;
}
/** Largest JSON example kept, in characters: a reader should see it whole. */
const EXAMPLE_MAX = 12_000;
/** Which error an operation shows first. */
const ERROR_PREFERENCE = [400, 409, 404, 422, 403, 401, 413, 415, 429];

/** A list's first two items (its pagination untouched): enough to show the shape. */
function trimList(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const data = (body as { data?: unknown }).data;
  return Array.isArray(data) && data.length > 2 ? { ...body, data: data.slice(0, 2) } : body;
}

/** A value's shape: member names and kinds, not values (what a change of the server would change). */
export function shapeOf(v: unknown): unknown {
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.length === 0 ? [] : [shapeOf(v[0])];
  if (typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, shapeOf((v as Record<string, unknown>)[k])]),
    );
  return typeof v;
}

/** A request as the document judges it: valid, or why not. */
interface Verdict {
  valid: boolean;
  why: string[];
}

export class Conformance {
  /** operationId → the statuses seen for it. */
  readonly exercised = new Map<string, Set<number>>();
  readonly problems: string[] = [];
  /** operationId → the first clean success this run saw (its JSON request and response): the document's examples. */
  private readonly successes = new Map<string, { request?: unknown; response: RecordedExchange }>();
  /** operationId → status → the first clean error body of that status. */
  private readonly errors = new Map<string, Map<number, RecordedExchange>>();
  /** Counts for the report: exchanges checked, bodies validated against a schema, 405s and 404s of unknown paths. */
  readonly counts = { exchanges: 0, bodiesValidated: 0, methodNotAllowed: 0, unknownPath: 0 };
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly compiled = new Map<Schema, ValidateFunction>();
  private readonly templates: Template[];
  /** A 400 whose details carry this issue (or whose code is this) is expected although the document calls the request valid (a rule stated in prose). */
  private rule: string | null = null;

  constructor(readonly doc: OpenApiDoc) {
    addFormats(this.ajv);
    this.templates = Object.keys(doc.paths).map((path) => {
      const names: string[] = [];
      const source = path
        .split('/')
        .map((seg) => {
          const m = /^\{(.+)\}$/.exec(seg);
          if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(m[1]!);
          return '([^/]+)';
        })
        .join('/');
      return { path, regex: new RegExp(`^${source}$`), names, literal: path.split('/').length - names.length };
    });
    // The most literal template first: /settings/payment-processor before a {param} of the same length.
    this.templates.sort((a, b) => b.literal - a.literal);
  }

  /** The document as served by GET /developers/openapi.yaml. */
  static async load(base: string): Promise<Conformance> {
    const res = await fetch(`${base}/developers/openapi.yaml`);
    if (res.status !== 200) throw new Error(`GET /developers/openapi.yaml: ${res.status}`);
    return new Conformance(parse(await res.text()) as OpenApiDoc);
  }

  /** A schema of the document, its #/components references resolved against the document's own. */
  private validator(schema: Schema): ValidateFunction {
    let v = this.compiled.get(schema);
    if (!v) {
      v = this.ajv.compile({ ...schema, components: this.doc.components });
      this.compiled.set(schema, v);
    }
    return v;
  }

  private valid(schema: Schema | undefined, value: unknown): string | null {
    if (!schema) return null;
    const v = this.validator(schema);
    if (v(value)) return null;
    return this.ajv.errorsText(v.errors, { dataVar: '' });
  }

  /** A harness client whose every exchange is checked. */
  client(base: string, key?: string): Api {
    const inner = client(base, key);
    return async (method, p, body, headers = {}) => {
      const res = await inner(method, p, body, headers);
      const sent: Record<string, string> = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
      if (body !== undefined) sent['content-type'] ??= 'application/json';
      if (key) sent.authorization = `Bearer ${key}`;
      this.check(method.toUpperCase(), p, sent, body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body), res);
      return res;
    };
  }

  /** Runs `f` expecting a 400 with this issue on a request the document calls valid (a rule said only in prose). */
  async expectingRule<T>(issue: string, f: () => Promise<T>): Promise<T> {
    this.rule = issue;
    try {
      return await f();
    } finally {
      this.rule = null;
    }
  }

  private problem(what: string, method: string, p: string, res: Res, why: string): void {
    this.problems.push(`${what}: ${method} ${p} → ${res.status}: ${why}`);
  }

  check(method: string, p: string, headers: Record<string, string>, body: string | undefined, res: Res): void {
    const before = this.problems.length;
    const op = this.checkExchange(method, p, headers, body, res);
    if (op && this.problems.length === before && method !== 'HEAD') this.record(op, headers, body, res);
  }

  /**
   * Keeps what a clean exchange sent and received as the example of its operation (issue #24: the
   * document's examples are the tests' own traffic). JSON only; a list keeps its first two items.
   */
  private record(op: Operation, headers: Record<string, string>, body: string | undefined, res: Res): void {
    if (!isJson(mediaOf(res.headers.get('content-type'))) && res.text.length > 0) return;
    const response = res.text.length > 0 ? trimList(res.json) : undefined;
    if (JSON.stringify(response ?? null).length > EXAMPLE_MAX) return;
    if (res.status < 300) {
      if (this.successes.has(op.operationId)) return;
      let request: unknown;
      // A multipart upload's parts are not shown: its success still is.
      if (body !== undefined && body.length > 0 && isJson(mediaOf(headers['content-type'] ?? null))) {
        if (body.length > EXAMPLE_MAX) return;
        request = JSON.parse(body);
      }
      this.successes.set(op.operationId, { ...(request !== undefined && { request }), response: { status: res.status, ...(response !== undefined && { body: response }) } });
    } else if (res.status < 500 && response !== undefined) {
      const byStatus = this.errors.get(op.operationId) ?? new Map<number, RecordedExchange>();
      if (!byStatus.has(res.status)) byStatus.set(res.status, { status: res.status, body: response });
      this.errors.set(op.operationId, byStatus);
    }
  }

  /** The examples this run recorded, by operationId: a success, and one error (400 with details first). */
  examples(): Record<string, RecordedExample> {
    const out: Record<string, RecordedExample> = {};
    for (const id of [...this.successes.keys()].sort()) {
      const errors = [...(this.errors.get(id)?.values() ?? [])];
      const rank = (e: RecordedExchange) => {
        const details = (e.body as { error?: { details?: unknown[] } }).error?.details?.length ?? 0;
        return (ERROR_PREFERENCE.indexOf(e.status) + 1 || 99) * 2 - (details > 0 ? 1 : 0);
      };
      const error = errors.sort((a, b) => rank(a) - rank(b))[0];
      out[id] = { ...this.successes.get(id)!, ...(error && { error }) };
    }
    return out;
  }

  private checkExchange(method: string, p: string, headers: Record<string, string>, body: string | undefined, res: Res): Operation | undefined {
    this.counts.exchanges++;
    const url = new URL(p, 'http://x');
    const match = this.templates.map((t) => ({ t, m: t.regex.exec(url.pathname) })).find((x) => x.m);
    const underApi = url.pathname === '/api/v1' || url.pathname.startsWith('/api/v1/');
    const errorBody = () => {
      const e = this.valid(ERROR_REF, res.json);
      if (e) this.problem('error body', method, p, res, e);
    };
    if (!match) {
      this.counts.unknownPath++;
      if (res.status !== 404 && !(underApi && res.status === 401)) this.problem('unknown path', method, p, res, 'expected 404');
      errorBody();
      return;
    }
    const item = this.doc.paths[match.t.path]!;
    const op = item[method.toLowerCase()];
    if (!op) {
      if (method === 'HEAD' && item.get) return;
      this.counts.methodNotAllowed++;
      if (underApi && res.status === 401) {
        errorBody();
        return;
      }
      if (res.status !== 405) {
        this.problem('method not allowed', method, p, res, 'expected 405');
        return;
      }
      const allow = new Set((res.headers.get('allow') ?? '').split(/,\s*/).filter(Boolean));
      const want = new Set(
        Object.keys(item)
          .filter((m) => METHODS.includes(m))
          .map((m) => m.toUpperCase()),
      );
      if (want.has('GET')) want.add('HEAD');
      if ([...want].sort().join() !== [...allow].sort().join())
        this.problem('Allow header', method, p, res, `Allow "${[...allow].join(', ')}", the document has ${[...want].join(', ')}`);
      errorBody();
      return;
    }
    const seen = this.exercised.get(op.operationId) ?? new Set<number>();
    seen.add(res.status);
    this.exercised.set(op.operationId, seen);

    const verdict = this.judgeRequest(op, match.t, match.m!, url, headers, body);
    const declared = this.response(op.responses[String(res.status)]);
    if (!declared) {
      this.problem('undeclared status', method, p, res, `${op.operationId} declares ${Object.keys(op.responses).join(', ')}; body ${res.text.slice(0, 300)}`);
    } else {
      // Every header of the gateway's own it sends on this response is declared there (issue #24).
      const declaredHeaders = new Set(Object.keys(declared.headers ?? {}).map((h) => h.toLowerCase()));
      for (const h of GATEWAY_HEADERS) if (res.headers.get(h) !== null && !declaredHeaders.has(h)) this.problem('undeclared header', method, p, res, h);
      const media = mediaOf(res.headers.get('content-type'));
      const content = declared.content ?? {};
      if (method !== 'HEAD' && (res.text.length > 0 || media)) {
        const entry = content[media];
        if (!entry) {
          this.problem('undeclared media type', method, p, res, `${media || '(none)'}; declared: ${Object.keys(content).join(', ') || '(no content)'}`);
        } else if (isJson(media)) {
          const e = this.valid(entry.schema, res.json);
          this.counts.bodiesValidated++;
          if (e) this.problem('response body', method, p, res, `${e}; body ${res.text.slice(0, 300)}`);
        } else if (entry.schema && entry.schema.contentEncoding === undefined) {
          const e = this.valid(entry.schema, res.text);
          this.counts.bodiesValidated++;
          if (e) this.problem('response body', method, p, res, e);
        }
      }
    }
    if (res.status === 400 && verdict.valid) {
      const issues = ((res.json?.error?.details ?? []) as Array<{ issue?: string }>).map((d) => d.issue);
      if (!(this.rule && (issues.includes(this.rule) || res.json?.error?.code === this.rule))) this.problem('valid request refused', method, p, res, res.text.slice(0, 400));
    }
    if (res.status >= 200 && res.status < 300 && !verdict.valid) this.problem('invalid request accepted', method, p, res, verdict.why.join('; '));
    return verdict.valid || res.status >= 400 ? op : undefined;
  }

  /** A response of the document, a $ref to components.responses (a shared error response) resolved. */
  private response(r: Operation['responses'][string] | undefined): Operation['responses'][string] | undefined {
    const name = r?.$ref?.replace('#/components/responses/', '');
    return name === undefined ? r : (this.doc.components.responses as Record<string, Operation['responses'][string]> | undefined)?.[name];
  }

  /** Whether the document calls this request valid: path, query and header parameters, and body. */
  private judgeRequest(op: Operation, t: Template, m: RegExpExecArray, url: URL, headers: Record<string, string>, body: string | undefined): Verdict {
    const why: string[] = [];
    const params = op.parameters ?? [];
    t.names.forEach((name, i) => {
      const p = params.find((x) => x.in === 'path' && x.name === name);
      let value: string;
      try {
        value = decodeURIComponent(m[i + 1]!);
      } catch {
        why.push(`path ${name} is not percent-encoded UTF-8`);
        return;
      }
      const e = this.valid(p?.schema, value);
      if (e) why.push(`path ${name}${e}`);
    });
    const query = params.filter((x) => x.in === 'query');
    const names = [...url.searchParams.keys()];
    for (const name of new Set(names)) {
      const p = query.find((x) => x.name === name);
      if (!p) why.push(`query ${name} is not a parameter of ${op.operationId}`);
      else if (names.filter((n) => n === name).length > 1) why.push(`query ${name} given twice`);
      else {
        const e = this.valid(p.schema, coerce(p.schema, url.searchParams.get(name)!));
        if (e) why.push(`query ${name}${e}`);
      }
    }
    for (const p of params.filter((x) => x.required && x.in !== 'path')) {
      if (p.in === 'query' && !url.searchParams.has(p.name)) why.push(`query ${p.name} is required`);
      if (p.in === 'header' && headers[p.name.toLowerCase()] === undefined) why.push(`header ${p.name} is required`);
    }
    for (const p of params.filter((x) => x.in === 'header')) {
      const v = headers[p.name.toLowerCase()];
      const e = v === undefined ? null : this.valid(p.schema, v);
      if (e) why.push(`header ${p.name}${e}`);
    }
    const rb = op.requestBody;
    const hasBody = body !== undefined && body.length > 0;
    if (!rb) {
      if (hasBody) why.push('a body where the operation takes none');
    } else if (!hasBody) {
      if (rb.required) why.push('the body is required');
    } else {
      const media = mediaOf(headers['content-type'] ?? null);
      const entry = rb.content[media];
      if (!entry) why.push(`body media type ${media || '(none)'} not declared`);
      else if (isJson(media)) {
        let value: unknown;
        try {
          value = JSON.parse(body);
        } catch {
          why.push('the body is not JSON');
        }
        const e = value === undefined ? null : this.valid(entry.schema, value);
        if (e) why.push(`body${e}`);
      } else if (media === 'multipart/form-data') {
        const e = this.valid(entry.schema, multipartFields(body));
        if (e) why.push(`body${e}`);
      }
    }
    return { valid: why.length === 0, why };
  }
}

/** A query value as its schema reads it: digits as numbers, true/false as booleans, anything else a string. */
function coerce(schema: Schema, value: string): unknown {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if ((types.includes('integer') || types.includes('number')) && /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** The parts of a multipart/form-data body as an object: text fields by name, a file part as a string. */
function multipartFields(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  const boundary = /^--([^\r\n]+)\r\n/.exec(body)?.[1];
  if (!boundary) return out;
  for (const part of body.split(`--${boundary}`)) {
    const m = /^\r\nContent-Disposition: form-data; name="([^"]+)"[^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n([\s\S]*)\r\n$/i.exec(part);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}
