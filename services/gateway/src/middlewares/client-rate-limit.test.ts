import { TokenBuckets } from '../rate-limit';
import { appOf, json, serve, testMetrics, valueOf } from '../testing/fakes';
import { clientRateLimit } from './client-rate-limit';

describe('clientRateLimit', () => {
  it('takes a token per request from the client address, then answers 429 rate_limited with Retry-After', async () => {
    const metrics = testMetrics();
    const served = await serve(
      appOf(clientRateLimit({ clientBuckets: new TokenBuckets(1, 2), metrics }), async (ctx) => {
        ctx.body = { ok: true };
      }),
    );
    try {
      const first = await served.call('/');
      expect(first.status).toBe(200);
      expect(first.headers.get('ratelimit-limit')).toBe('2');
      expect(first.headers.get('ratelimit-remaining')).toBe('1');
      expect((await served.call('/')).status).toBe(200);
      const refused = await served.call('/', { headers: { authorization: `Bearer svc_test_${'a'.repeat(40)}` } });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect((await json(refused)).error.code).toBe('rate_limited');
      expect(await valueOf(metrics.clientRateLimited)).toBe(1);
    } finally {
      await served.close();
    }
  });
});
