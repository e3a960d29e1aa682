/**
 * The request/reply operations, one declaration each in api/<resource>.ts: the service that serves
 * it and the schemas of its path params, query, body and success reply. RPC_OPERATIONS, rpcSubject()
 * and the typed RpcServer.handle / RpcClient.call derive from this catalogue; each route takes its
 * schemas from its operation.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { PublicContext, RpcOk, RpcReply, RpcRequest, TrustedContext } from './envelope';
import type { RpcDef } from './operations';
import { RPC_CATALOGUE } from './api/index';
import type { RouteSpec } from './routes';

export { RPC_CATALOGUE };
export type { RpcDef };

export type RpcCatalogue = typeof RPC_CATALOGUE;
export type RpcOperation = keyof RpcCatalogue;

/** One public route (routes.ts), its rpc one of the catalogue's operations. */
export type RouteDef = RouteSpec<RpcOperation>;

/** How long a caller whose RPC timeout is `callerMs` waits for op's reply: the longer of its own and op's timeoutMs. */
export function rpcTimeoutOf(op: RpcOperation, callerMs: number): number {
  return Math.max(callerMs, (RPC_CATALOGUE[op] as RpcDef).timeoutMs ?? 0);
}

/**
 * true when K is more than one operation (typically RpcOperation itself: an operation known only
 * at run time, as in the gateway's route table). Such requests and replies stay untyped
 * (RpcRequest, RpcOk<unknown>): the gateway checks them against the route's schemas at run time.
 */
type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;
type Part<K extends RpcOperation, P extends keyof RpcDef, Missing, Loose> = [IsUnion<K>] extends [true]
  ? Loose
  : RpcCatalogue[K] extends { readonly [Q in P]: infer S extends TSchema }
    ? Static<S>
    : Missing;

/** Path parameters of K (Record<string, string> when it has none). */
export type RpcParamsOf<K extends RpcOperation> = Part<K, 'params', Record<string, string>, Record<string, string>>;
/** Query of K after the gateway validated, coerced and defaulted it. */
export type RpcQueryOf<K extends RpcOperation> = Part<K, 'query', Record<string, never>, Record<string, unknown>>;
/** Body of K; an operation without a body gets {}. */
export type RpcBodyOf<K extends RpcOperation> = Part<K, 'body', Record<string, never>, unknown>;
/** The success body of K (what its handler returns as RpcOk.body). */
export type RpcReplyBodyOf<K extends RpcOperation> = Part<K, 'reply', never, unknown>;

/** The context K's handler gets: a PublicContext for a public operation, else the TrustedContext. */
export type RpcContextOf<K extends RpcOperation> = [K] extends [KeyedOperation] ? TrustedContext : [K] extends [PublicOperation] ? PublicContext : TrustedContext | PublicContext;

/** Operations of public routes (no API key: their requests carry a PublicContext). */
export type PublicOperation = { [K in RpcOperation]: RpcCatalogue[K] extends { readonly public: true } ? K : never }[RpcOperation];
/** Operations behind an API key (their requests carry the TrustedContext). */
export type KeyedOperation = Exclude<RpcOperation, PublicOperation>;

export type RpcRequestOf<K extends RpcOperation> = RpcRequest<RpcBodyOf<K>, RpcParamsOf<K>, RpcQueryOf<K>, RpcContextOf<K>>;
export type RpcOkOf<K extends RpcOperation> = RpcOk<RpcReplyBodyOf<K>>;
export type RpcReplyOf<K extends RpcOperation> = RpcReply<RpcReplyBodyOf<K>>;
export type RpcHandlerOf<K extends RpcOperation> = (req: RpcRequestOf<K>) => Promise<RpcOkOf<K>>;
