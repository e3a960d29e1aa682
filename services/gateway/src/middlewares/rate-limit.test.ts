import { TokenBuckets } from '../rate-limit';
import { appOf, json, principal, serve, testMetrics, valueOf, type Served } from '../testing/fakes';
import { rateLimit } from './rate-limit';
import type { Middleware } from './state';

describe('rateLimit', () => {
  const metrics = testMetrics();
  let served: Served;
  const asKeyOf: Middleware = async (ctx, next) => {
    ctx.state.principal = principal({ apiKeyId: ctx.get('x-key') });
    await next();
  };

  beforeAll(async () => {
    served = await serve(
      appOf(asKeyOf, rateLimit({ buckets: new TokenBuckets(1, 2), metrics }), async (ctx) => {
        ctx.body = { ok: true };
      }),
    );
  });
  afterAll(() => served.close());

  it('sends RateLimit headers and refuses past the burst with 429 and Retry-After, per key', async () => {
    const a = { headers: { 'x-key': 'a' } };
    const first = await served.call('/', a);
    expect(first.status).toBe(200);
    expect([first.headers.get('ratelimit-limit'), first.headers.get('ratelimit-remaining')]).toEqual(['2', '1']);
    expect(first.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    expect((await served.call('/', a)).status).toBe(200);
    const refused = await served.call('/', a);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    const e = (await json(refused)).error;
    expect(e.code).toBe('rate_limited');
    expect(e.message).toBe('Rate limit exceeded: 1 requests/s with bursts of 2. Retry after 1s.');
    expect(await valueOf(metrics.rateLimited)).toBe(1);
    // Another key has its own bucket.
    expect((await served.call('/', { headers: { 'x-key': 'b' } })).status).toBe(200);
  });
});
