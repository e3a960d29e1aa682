import type { TSchema } from '@sinclair/typebox';
import { type RpcDef, operations } from './operations';
import { type RecordResource, type RouteDef, recordRoutes } from './routes';
import { idParams, listEnvelope, singleEnvelope } from './schemas/common';
import type { ServiceName } from './services';

type Defs = Record<string, Omit<RpcDef, 'service'>>;
type One<N extends string, T extends TSchema> = ReturnType<typeof singleEnvelope<N, T>>;
type Page<N extends string, T extends TSchema> = ReturnType<typeof listEnvelope<N, T>>;

/** The create (when a body is given), list (when a query is given) and get operations of a resource of records. */
type RecordDefs<R extends string, B, Q, Reply extends TSchema, List> = (B extends TSchema ? { [K in `${R}.create`]: { body: B; reply: Reply } } : unknown) &
  (Q extends TSchema ? { [K in `${R}.list`]: { query: Q; reply: List } } : unknown) & { [K in `${R}.get`]: { params: typeof idParams; reply: Reply } };

/** An extra operation of the same name replaces the record one (e.g. a create whose reply differs), keeping its place. */
type Override<A, X> = { [K in keyof Omit<A, keyof X>]: A[K] } & X;
type Operations<S extends ServiceName, Ops> = { readonly [K in keyof Ops]: { readonly service: S } & Ops[K] };
type ResourceOps<S extends ServiceName, R extends string, N extends string, Rec extends TSchema, Ns extends string, B, Q, X> = Operations<
  S,
  Override<RecordDefs<R, B, Q, One<N, Rec>, Page<Ns, Rec>>, X>
>;

/**
 * A resource of records in one declaration: its envelopes (`{data, <one>}` and `{data, <many>, pagination}`),
 * its RPC operations (create when `create` is given, list when `query` is, get, then `more`) and its routes
 * (built by `routes` from recordRoutes over those operations).
 */
export function recordResource<
  S extends ServiceName,
  R extends string,
  N extends string,
  Rec extends TSchema,
  Ns extends string = never,
  B extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  X extends Defs = {}, // eslint-disable-line @typescript-eslint/no-empty-object-type
>(def: {
  service: S;
  resource: R;
  /** The envelope member of one record, e.g. 'customer'. */
  one: N;
  /** The envelope member of a page, e.g. 'customers' (with `query`). */
  many?: Ns;
  record: Rec;
  create?: B;
  query?: Q;
  /** The other operations of the resource (actions, updates), given its envelopes. */
  more?: (r: { response: One<N, Rec>; listResponse: Page<Ns, Rec> }) => X;
  http: Omit<RecordResource<R>, 'resource'>;
  routes: (r: ReturnType<typeof recordRoutes<ResourceOps<S, R, N, Rec, Ns, B, Q, X>, R>>) => RouteDef[];
}) {
  const response = singleEnvelope(def.one, def.record);
  const listResponse = (def.many === undefined ? undefined : listEnvelope(def.many, def.record)) as Page<Ns, Rec>;
  const defs: Defs = {};
  if (def.create) defs[`${def.resource}.create`] = { body: def.create, reply: response };
  if (def.query) defs[`${def.resource}.list`] = { query: def.query, reply: listResponse };
  defs[`${def.resource}.get`] = { params: idParams, reply: response };
  const ops = operations(def.service, { ...defs, ...def.more?.({ response, listResponse }) }) as ResourceOps<S, R, N, Rec, Ns, B, Q, X>;
  const routes = def.routes(recordRoutes(ops, { resource: def.resource, ...def.http }));
  return { response, listResponse, operations: ops, routes };
}
