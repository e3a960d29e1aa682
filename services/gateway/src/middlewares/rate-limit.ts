import { AppError } from '@acct/contracts';
import type { GatewayMetrics } from '../metrics';
import type { TokenBuckets } from '../rate-limit';
import type { Middleware } from './state';

/** One token per request from the API key's bucket; RateLimit-* headers on every answer. */
export function rateLimit({ buckets, metrics }: { buckets: TokenBuckets; metrics: GatewayMetrics }): Middleware {
  return async (ctx, next) => {
    const d = buckets.take(ctx.state.principal!.apiKeyId);
    ctx.set('RateLimit-Limit', String(d.limit));
    ctx.set('RateLimit-Remaining', String(d.remaining));
    ctx.set('RateLimit-Reset', String(d.resetSeconds));
    if (!d.allowed) {
      metrics.rateLimited.inc();
      ctx.set('Retry-After', String(d.retryAfterSeconds));
      throw new AppError('rate_limited', `Rate limit exceeded: ${buckets.ratePerSecond} requests/s with bursts of ${d.limit}. Retry after ${d.retryAfterSeconds}s.`);
    }
    await next();
  };
}
