import type { GatewayMetrics } from '../metrics';
import type { TokenBuckets } from '../rate-limit';
import { limitBy } from './rate-limit';
import type { Middleware } from './state';

/**
 * One token per request from the client address's bucket, before authentication: a flood of
 * requests without a valid key (each unknown key costs a key lookup) is refused here with 429.
 * The per-key limit, later, sets the RateLimit-* headers of an authenticated request again.
 */
export function clientRateLimit({ clientBuckets, metrics }: { clientBuckets: TokenBuckets; metrics: GatewayMetrics }): Middleware {
  return limitBy(clientBuckets, (ctx) => ctx.ip || 'unknown', metrics.clientRateLimited, 'Rate limit of this client address');
}
