import type { TSchema } from '@sinclair/typebox';
import type { ServiceName } from './services';

/** One request/reply operation: the service that serves it and the schemas of its request and success reply. */
export interface RpcDef {
  service: ServiceName;
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  /** The success body (RpcOk.body), as the gateway sends it. */
  reply: TSchema;
  /** Served for a public route: the request carries a PublicContext, no tenancy. */
  public?: true;
  /** Asked by the gateway or another service only, never a public route (e.g. an upload's steps). */
  internal?: true;
  /**
   * How long a caller waits for the reply, ms, when the caller's own RPC timeout (the gateway's
   * RPC_TIMEOUT_MS, 5 s) is too short: for an operation whose time grows with the data it reads
   * (the ledger verification). Never shortens the caller's timeout (rpcTimeoutOf).
   */
  timeoutMs?: number;
}

/** The operations of one resource, all served by `service`; each keeps its exact schema types for RpcCatalogue. */
export function operations<S extends ServiceName, const T extends Record<string, Omit<RpcDef, 'service'>>>(
  service: S,
  defs: T,
): { readonly [K in keyof T]: { readonly service: S } & T[K] } {
  return Object.fromEntries(Object.entries(defs).map(([op, def]) => [op, { service, ...def }])) as { readonly [K in keyof T]: { readonly service: S } & T[K] };
}
