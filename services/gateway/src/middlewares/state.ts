import type { Context, Next } from 'koa';
import type { Logger } from '@acct/kit';
import type { Principal } from '../key-store';
import type { DashboardSession } from '../dashboard/types';

/** What the middlewares of one request hand down to each other. */
export interface GatewayState {
  requestId: string;
  log: Logger;
  /** The route template (OpenAPI style), for metrics and the access log. */
  routePath?: string;
  principal?: Principal;
  /** The signed-in member of a /dashboard/api request. */
  dashboard?: DashboardSession;
  /**
   * A /dashboard/api/v1 request's environment and connected app (its headers choose them): part of
   * its Idempotency-Key fingerprint, so that a member's key is never replayed across them.
   */
  fingerprintScope?: string;
  /** The validated query and body, as forwarded. */
  query?: Record<string, unknown>;
  body?: unknown;
  /** A raw route's body, unparsed (readRaw). */
  raw?: Buffer;
  /** A keyed write's fingerprint, forwarded with its Idempotency-Key: the service answers for the key. */
  idempotencyFingerprint?: string;
  /** The service answered with the kept first answer to the Idempotency-Key. */
  keyReplayed?: boolean;
}

/** params: the path parameters @koa/router matched (Koa's own Context leaves them untyped). */
export type Ctx = Context & { state: GatewayState; params: Record<string, string> };
export type Middleware = (ctx: Ctx, next: Next) => Promise<void>;

/** A route the gateway answers itself (rpc: null), by operationId. */
export type LocalHandler = (ctx: Ctx) => void | Promise<void>;
