import { TEST_KEY, appOf, fakeKeys, json, principal, serve, testMetrics, valueOf, type Served } from '../testing/fakes';
import { authenticate } from './authenticate';

describe('authenticate', () => {
  const revokedKey = `svc_live_${'r'.repeat(40)}`;
  const disabledKey = `svc_test_${'d'.repeat(40)}`;
  const expiredKey = `svc_test_${'e'.repeat(40)}`;
  const expiringKey = `svc_test_${'f'.repeat(40)}`;
  const keys = fakeKeys({
    [TEST_KEY]: principal(),
    [revokedKey]: principal({ revoked: true }),
    [disabledKey]: principal({ appActive: false }),
    // Rolled: cached principals carry the expiry, checked on every request.
    [expiredKey]: principal({ expiresAt: new Date(Date.now() - 1) }),
    [expiringKey]: principal({ expiresAt: new Date(Date.now() + 3_600_000) }),
  });
  const metrics = testMetrics();
  let served: Served;

  beforeAll(async () => {
    served = await serve(
      appOf(authenticate({ keys, metrics }), async (ctx) => {
        ctx.body = { principal: ctx.state.principal };
      }),
    );
  });
  afterAll(() => served.close());

  it('puts the principal of a valid key in the state', async () => {
    const r = await served.call('/', { key: TEST_KEY });
    expect(r.status).toBe(200);
    expect((await json(r)).principal).toMatchObject({ apiKeyId: 'key-1', organizationId: 'org-1', environment: 'test' });
  });

  it.each([
    ['no header', {}, 401, 'unauthorized', /An API key is required/, 'missing'],
    ['not bearer', { authorization: 'Basic abc' }, 401, 'unauthorized', /must be "Bearer <API key>"/, 'malformed_header'],
    ['a malformed key', { authorization: 'Bearer svc_prod_abc' }, 401, 'unauthorized', /malformed/, 'malformed_key'],
    ['an unknown key', { authorization: `Bearer svc_test_${'x'.repeat(40)}` }, 401, 'unauthorized', /not valid/, 'unknown'],
    ['a revoked key', { authorization: `Bearer ${revokedKey}` }, 401, 'unauthorized', /revoked/, 'revoked'],
    ['a rolled key past its expiry', { authorization: `Bearer ${expiredKey}` }, 401, 'unauthorized', /expired/, 'expired'],
    ['a key of a disabled app', { authorization: `Bearer ${disabledKey}` }, 403, 'forbidden', /disabled/, 'app_disabled'],
  ])('refuses %s', async (_what, headers, status, code, message, reason) => {
    const r = await served.call('/', { headers });
    expect(r.status).toBe(status);
    const e = (await json(r)).error;
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
    expect(await valueOf(metrics.authFailures, { reason })).toBe(1);
  });

  it('accepts a rolled key until its expiry', async () => {
    expect((await served.call('/', { key: expiringKey })).status).toBe(200);
  });

  it('does not look up a key that cannot be one', async () => {
    keys.resolved.length = 0;
    await served.call('/', { headers: { authorization: 'Bearer svc_test_short' } });
    expect(keys.resolved).toEqual([]);
  });
});
