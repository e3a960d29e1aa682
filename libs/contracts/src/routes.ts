/**
 * The HTTP side of the API: route types and the builders the api/<resource>.ts files declare their
 * routes with. A route states only HTTP facts (method, path, texts, statuses, idempotency, kind) and
 * names its RPC operation; its params, query, body and reply schemas come from that operation.
 * ROUTES, the concatenation of every resource's routes, is in api/index.ts.
 */
import type { JsonSchema } from './schemas/common';
import type { RpcDef } from './operations';

/** Modules of SPEC.md §1: guidance per route group (warning header, optional hard enforcement). */
export const MODULES = [
  'customers',
  'estimates',
  'invoices',
  'payments',
  'documents',
  'reports',
  'webhooks',
  'embedded_settings',
  'customer_portal',
  'vendors',
  'bills_ap',
  'tax_1099',
] as const;
export type ModuleName = (typeof MODULES)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Whether a route takes an Idempotency-Key (API-DECISIONS §2): every POST and PATCH but a raw one. PATCH is
 * idempotent by itself; the key also makes its retry answer the first response (and refuses other content).
 */
export const takesIdempotencyKey = (route: Pick<RouteSpec, 'method' | 'kind'>): boolean => (route.method === 'POST' || route.method === 'PATCH') && route.kind !== 'raw';

/**
 * How the gateway serves a route: `json` (JSON in, RPC, JSON out), `upload` (the request stream goes
 * to an upload handler, no JSON body), `download` (like json, but the reply may carry bytes),
 * `public` (no API key; a gateway handler answers, e.g. HTML or YAML) and `raw` (no API key, limited
 * per client address: the body's bytes, unparsed, and the route's signature header go to the service,
 * which authenticates the request by that signature, e.g. a payment processor's webhook).
 */
export type RouteKind = 'json' | 'upload' | 'download' | 'public' | 'raw';

/**
 * The one media type a route's request body is sent as, as the OpenAPI document declares it:
 * multipart/form-data for an upload, application/json for a raw route and any other POST, PUT or
 * PATCH; undefined for a route that takes no body. The gateway refuses any other with 415.
 */
export function requestMediaType(route: Pick<RouteSpec, 'method' | 'kind'>): 'application/json' | 'multipart/form-data' | undefined {
  if (route.kind === 'upload') return 'multipart/form-data';
  if (route.kind === 'raw' || route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH') return 'application/json';
  return undefined;
}

export interface SuccessResponse {
  status: 200 | 201 | 202;
  description: string;
  schema: JsonSchema;
  /**
   * The media type of a success that is not JSON (e.g. text/html, application/pdf), or every type
   * it can have (a download sends the type sniffed from the stored bytes).
   */
  contentType?: string | readonly string[];
}

/**
 * One public route: the gateway builds its router from this table and the OpenAPI document is
 * generated from it, so the two cannot drift. `rpc: null` marks a route the gateway serves itself.
 * `Op` is the set of operation names: a string where the api/<resource>.ts files declare routes
 * (they are what defines the operations), RpcOperation in RouteDef (rpc-catalogue.ts).
 */
export interface RouteSpec<Op extends string = string> {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path, e.g. /api/v1/customers/{id}. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  module: ModuleName | null;
  rpc: Op | null;
  auth: boolean;
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  responses: SuccessResponse[];
  /** Route uses Idempotency-Key as its own dedupe key instead of the gateway's generic replay. */
  ownIdempotency?: boolean;
  /** Absent means 'json'. */
  kind?: RouteKind;
  /** A raw route: the header forwarded with the bytes (e.g. stripe-signature). */
  signatureHeader?: string;
  /** A raw route: what the bytes are (documentation only: the gateway does not parse them). */
  rawBody?: JsonSchema;
  /**
   * Error statuses this route answers beyond those its shape implies (see openapi.ts), with what
   * they mean: e.g. 404 on a route with no id when the setting it reads is not there.
   */
  moreErrors?: Record<string, string>;
}

/** The success statuses of a route and what each means; its schema is the operation's reply (or the route's bytes). */
export type Statuses = { 201?: string; 200?: string; 202?: string };

/** What a route says beyond its operation: HTTP facts only. */
export interface RouteFacts {
  operationId: string;
  method: HttpMethod;
  path: string;
  summary: string;
  description?: string;
  /** Default: the resource's tag and module (routesOf). */
  tag?: string;
  module?: ModuleName | null;
  statuses: Statuses;
  /** A success that is not JSON: its media type(s) (a download's bytes, a page). */
  contentType?: string | readonly string[];
  ownIdempotency?: boolean;
  kind?: RouteKind;
  signatureHeader?: string;
  rawBody?: JsonSchema;
  moreErrors?: Record<string, string>;
}

/** A download answers bytes, whatever its operation replies (where the gateway fetches them from). */
export const BYTES: JsonSchema = { type: 'string', contentEncoding: 'binary' };

/** 201 created, and 200 for a replay of the same external id with the same content. */
const createStatuses = (what: string): Statuses => ({
  201: `${what} created.`,
  200: `Replay: the same external id with the same content returns the existing ${what.toLowerCase()} with header Idempotent-Replayed: true.`,
});

interface Served {
  rpc: string | null;
  auth: boolean;
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  reply: JsonSchema;
}

function build(facts: RouteFacts & { tag: string; module: ModuleName | null }, served: Served): RouteSpec {
  const { statuses, contentType, tag, module, ...http } = facts;
  const { reply, ...request } = served;
  const responses = ([201, 202, 200] as const)
    .filter((status) => statuses[status] !== undefined)
    .map((status): SuccessResponse => ({ status, description: statuses[status]!, schema: reply, ...(contentType && { contentType }) }));
  const defined = Object.fromEntries(Object.entries(request).filter(([, v]) => v !== undefined)) as Omit<Served, 'reply'>;
  return { ...http, tag, module, ...defined, responses };
}

/**
 * The route builder of one resource: route(op, facts) is the route of operation op. Its params,
 * query and body are op's (a raw route's body is bytes: rawBody documents them), its success schema
 * op's reply (a download's is BYTES), and it needs an API key unless op is public.
 */
export function routesOf<T extends Record<string, RpcDef>>(ops: T, defaults: { tag: string; module: ModuleName | null }) {
  return (op: keyof T & string, facts: RouteFacts): RouteSpec => {
    const def = ops[op];
    if (!def) throw new Error(`no operation ${op}`);
    return build(
      { ...defaults, ...facts },
      {
        rpc: op,
        auth: def.public !== true,
        params: def.params,
        query: def.query,
        body: facts.kind === 'raw' ? undefined : def.body,
        reply: facts.kind === 'download' ? BYTES : def.reply,
      },
    );
  };
}

/** A route the gateway serves itself (no RPC operation): its schemas are HTTP facts too. */
export function gatewayRoute(facts: RouteFacts & { tag: string; module: ModuleName | null; auth: boolean; params?: JsonSchema; body?: JsonSchema; reply: JsonSchema }): RouteSpec {
  const { auth, params, body, reply, ...http } = facts;
  return build(http, { rpc: null, auth, params, body, reply });
}

type Texts = Pick<RouteFacts, 'summary' | 'description'>;
const texts = (t: string | Texts): Texts => (typeof t === 'string' ? { summary: t } : t);

/** A resource of records: its operations (recordResource), where it lives and how the document names it. */
export interface RecordResource<R extends string> {
  resource: R;
  /** The record, e.g. 'Invoice': operation ids listInvoices, createInvoice, getInvoice, postInvoice. */
  name: string;
  /** The collection, e.g. /api/v1/invoices (the record at /{id}). */
  path: string;
  tag: string;
  module: ModuleName | null;
}

const DONE = { post: 'posted', reverse: 'reversed' } as const;

/**
 * The route builders of a resource of records: `route(op, facts)` for any of its operations (routesOf),
 * and its list, create, get and update (PATCH) routes (recordResource) and post and reverse actions from their texts
 * alone. Each default text is overridable: the list's success `page` (A page of <name>s.), the get's
 * summary (Get one <name>.) and success `one` (The <name>.), an action's `what` (the <name>).
 */
export function recordRoutes<T extends Record<string, RpcDef>, R extends string>(ops: T, r: RecordResource<R>) {
  const route = routesOf(ops, { tag: r.tag, module: r.module });
  const op = (verb: string) => `${r.resource}.${verb}` as keyof T & string;
  const id = r.name.replace(/ (\w)/g, (_m, c: string) => c.toUpperCase());
  const what = r.name.toLowerCase();
  return {
    route,
    list: (t: string | Texts, page = `A page of ${what}s.`) => route(op('list'), { operationId: `list${id}s`, method: 'GET', path: r.path, ...texts(t), statuses: { 200: page } }),
    create: (t: Texts & Pick<RouteFacts, 'ownIdempotency'> & { statuses?: Statuses }) =>
      route(op('create'), { operationId: `create${id}`, method: 'POST', path: r.path, statuses: createStatuses(r.name), ...t }),
    get: (t: string | Texts = `Get one ${what}.`, one = `The ${what}.`) =>
      route(op('get'), { operationId: `get${id}`, method: 'GET', path: `${r.path}/{id}`, ...texts(t), statuses: { 200: one } }),
    /** PATCH <path>/{id} (operation <resource>.update): answers the record after the update, envelope as get. */
    update: (t: string | Texts, one = `The ${what} after the update.`) =>
      route(op('update'), { operationId: `update${id}`, method: 'PATCH', path: `${r.path}/{id}`, ...texts(t), statuses: { 200: one } }),
    /** POST <path>/{id}/<verb>: answers the record with action {type: posted | reversed, status: completed}. */
    action: <V extends keyof typeof DONE>(verb: `${R}.${V}` extends keyof T ? V : never, t: Texts & { what?: string }) =>
      route(op(verb), {
        operationId: `${verb}${id}`,
        method: 'POST',
        path: `${r.path}/{id}/${verb}`,
        summary: t.summary,
        ...(t.description && { description: t.description }),
        statuses: { 200: `The ${DONE[verb]} ${t.what ?? what} with action {type: ${DONE[verb]}, status: completed}.` },
      }),
  };
}
