import type { Counter } from 'prom-client';
import { AppError } from '@acct/contracts';
import type { GatewayMetrics } from '../metrics';
import type { TokenBuckets } from '../rate-limit';
import type { Ctx, Middleware } from './state';

/**
 * One token per request from the bucket `keyOf` names; RateLimit-* headers on every answer, and
 * 429 rate_limited with Retry-After when the bucket is empty. The per-key and per-address limits
 * are this one mechanism with another key.
 */
export function limitBy(buckets: TokenBuckets, keyOf: (ctx: Ctx) => string, refused: Counter, what: string): Middleware {
  return async (ctx, next) => {
    const d = buckets.take(keyOf(ctx));
    ctx.set('RateLimit-Limit', String(d.limit));
    ctx.set('RateLimit-Remaining', String(d.remaining));
    ctx.set('RateLimit-Reset', String(d.resetSeconds));
    if (!d.allowed) {
      refused.inc();
      ctx.set('Retry-After', String(d.retryAfterSeconds));
      throw new AppError('rate_limited', `${what} exceeded: ${buckets.ratePerSecond} requests/s with bursts of ${d.limit}. Retry after ${d.retryAfterSeconds}s.`);
    }
    await next();
  };
}

/** One token per request from the API key's bucket. */
export function rateLimit({ buckets, metrics }: { buckets: TokenBuckets; metrics: GatewayMetrics }): Middleware {
  return limitBy(buckets, (ctx) => ctx.state.principal!.apiKeyId, metrics.rateLimited, 'Rate limit');
}
