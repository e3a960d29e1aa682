import { AppError } from '@acct/contracts';
import type { GatewayMetrics } from '../metrics';
import type { TokenBuckets } from '../rate-limit';
import type { Middleware } from './state';

/**
 * One token per request from the client address's bucket, before authentication: a flood of
 * requests without a valid key (each unknown key costs a key lookup) is refused here with 429.
 * The per-key limit, later, sets the RateLimit-* headers of an authenticated request again.
 */
export function clientRateLimit({ clientBuckets, metrics }: { clientBuckets: TokenBuckets; metrics: GatewayMetrics }): Middleware {
  return async (ctx, next) => {
    const d = clientBuckets.take(ctx.ip || 'unknown');
    ctx.set('RateLimit-Limit', String(d.limit));
    ctx.set('RateLimit-Remaining', String(d.remaining));
    ctx.set('RateLimit-Reset', String(d.resetSeconds));
    if (!d.allowed) {
      metrics.clientRateLimited.inc();
      ctx.set('Retry-After', String(d.retryAfterSeconds));
      throw new AppError(
        'rate_limited',
        `Rate limit of this client address exceeded: ${clientBuckets.ratePerSecond} requests/s with bursts of ${d.limit}. Retry after ${d.retryAfterSeconds}s.`,
      );
    }
    await next();
  };
}
