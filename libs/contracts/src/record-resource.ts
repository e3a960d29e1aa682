import type { TSchema } from '@sinclair/typebox';
import { pluralOf } from './envelope';
import { type RpcDef, operations } from './operations';
import { type RecordResource, type RouteSpec, recordRoutes } from './routes';
import { idParams, listEnvelope, reverseBody, singleEnvelope, withAction } from './schemas/common';
import type { ServiceName } from './services';

type Defs = Record<string, Omit<RpcDef, 'service'>>;
type One<N extends string, T extends TSchema> = ReturnType<typeof singleEnvelope<N, T>>;
type Page<N extends string, T extends TSchema> = ReturnType<typeof listEnvelope<N, T>>;
type Done<N extends string, T extends TSchema, A extends string> = ReturnType<typeof withAction<N, T, A>>;

/** The actions of a record that is posted and reversed: POST /{id}/post and POST /{id}/reverse (with reverseBody). */
type Action = 'post' | 'reverse';
type ActionDefs<R extends string, A extends Action, N extends string, T extends TSchema> = {
  [K in A as `${R}.${K}`]: K extends 'reverse'
    ? { params: typeof idParams; body: typeof reverseBody; reply: Done<N, T, 'reversed'> }
    : { params: typeof idParams; reply: Done<N, T, 'posted'> };
};

/** The create (when a body is given), list (when a query is given) and get operations of a resource of records. */
type RecordDefs<R extends string, B, Q, Reply extends TSchema, List> = (B extends TSchema ? { [K in `${R}.create`]: { body: B; reply: Reply } } : unknown) &
  (Q extends TSchema ? { [K in `${R}.list`]: { query: Q; reply: List } } : unknown) & { [K in `${R}.get`]: { params: typeof idParams; reply: Reply } };
/** PATCH /{id} (when an update body is given), answering the record as get does (API-DECISIONS §11). */
type UpdateDefs<R extends string, U, Reply extends TSchema> = U extends TSchema ? { [K in `${R}.update`]: { params: typeof idParams; body: U; reply: Reply } } : unknown;

/** An extra operation of the same name replaces the record one (e.g. a create whose reply differs), keeping its place. */
type Override<A, X> = { [K in keyof Omit<A, keyof X>]: A[K] } & X;
type Operations<S extends ServiceName, Ops> = { readonly [K in keyof Ops]: { readonly service: S } & Ops[K] };
type ResourceOps<S extends ServiceName, R extends string, N extends string, Rec extends TSchema, B, Q, A extends Action, U, X> = Operations<
  S,
  Override<RecordDefs<R, B, Q, One<N, Rec>, Page<`${N}s`, Rec>> & ActionDefs<R, A, N, Rec> & UpdateDefs<R, U, One<N, Rec>>, X>
>;

/**
 * A resource of records in one declaration: its envelopes (`{data, <one>}` and `{data, <many>, pagination}`),
 * its RPC operations (create when `create` is given, list when `query` is, get, its `actions`, update when `update` is, then `more`) and its routes
 * (built by `routes` from recordRoutes over those operations).
 */
export function recordResource<
  S extends ServiceName,
  R extends string,
  N extends string,
  Rec extends TSchema,
  B extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  A extends Action = never,
  U extends TSchema | undefined = undefined,
  X extends Defs = {}, // eslint-disable-line @typescript-eslint/no-empty-object-type
>(def: {
  service: S;
  resource: R;
  /** The envelope member of one record, e.g. 'customer' (of a page, with `query`: its plural, pluralOf). */
  one: N;
  record: Rec;
  create?: B;
  query?: Q;
  /** Its post and reverse actions, answering the record with action {type: posted | reversed, status: completed}. */
  actions?: readonly A[];
  /** The body of its PATCH /{id} (operation `<resource>.update`), answering the record. */
  update?: U;
  /** The other operations of the resource (actions, updates), given its envelopes. */
  more?: (r: { response: One<N, Rec>; listResponse: Page<`${N}s`, Rec> }) => X;
  http: Omit<RecordResource<R>, 'resource'>;
  routes: (r: ReturnType<typeof recordRoutes<ResourceOps<S, R, N, Rec, B, Q, A, U, X>, R>>) => RouteSpec[];
}) {
  const response = singleEnvelope(def.one, def.record);
  const listResponse = (def.query === undefined ? undefined : listEnvelope(pluralOf(def.one), def.record)) as Page<`${N}s`, Rec>;
  const defs: Defs = {};
  if (def.create) defs[`${def.resource}.create`] = { body: def.create, reply: response };
  if (def.query) defs[`${def.resource}.list`] = { query: def.query, reply: listResponse };
  defs[`${def.resource}.get`] = { params: idParams, reply: response };
  const postResponse = withAction(def.one, def.record, 'posted');
  const reverseResponse = withAction(def.one, def.record, 'reversed');
  for (const a of def.actions ?? [])
    defs[`${def.resource}.${a}`] = a === 'post' ? { params: idParams, reply: postResponse } : { params: idParams, body: reverseBody, reply: reverseResponse };
  if (def.update) defs[`${def.resource}.update`] = { params: idParams, body: def.update, reply: response };
  const ops = operations(def.service, { ...defs, ...def.more?.({ response, listResponse }) }) as ResourceOps<S, R, N, Rec, B, Q, A, U, X>;
  const routes = def.routes(recordRoutes(ops, { resource: def.resource, ...def.http }));
  return { response, listResponse, postResponse, reverseResponse, operations: ops, routes };
}
