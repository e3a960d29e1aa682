import type { Context, Next } from 'koa';
import type { Logger } from '@acct/kit';
import type { Principal } from '../key-store';

/** What the middlewares of one request hand down to each other. */
export interface GatewayState {
  requestId: string;
  log: Logger;
  /** The route template (OpenAPI style), for metrics and the access log. */
  routePath?: string;
  principal?: Principal;
  /** The validated query and body, as forwarded. */
  query?: Record<string, unknown>;
  body?: unknown;
}

export type Ctx = Context & { state: GatewayState };
export type Middleware = (ctx: Ctx, next: Next) => Promise<void>;
