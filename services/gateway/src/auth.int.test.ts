import { randomBytes } from 'node:crypto';
import { migrate } from '@acct/kit';
import { freshDatabase, waitFor } from '@acct/testing';
import { bootstrap, revokeApiKey, setAppStatus, setModules } from './admin/admin';
import { openGatewayOrm } from './db';
import { json, valueOf } from './testing/fakes';
import { gatewayBed } from './testing/int-gateway';

/** Authentication, rate limits and module guidance of the gateway, on a real key store. */
const bed = gatewayBed();
const { gateway, call, received } = bed;

describe('gateway authentication, against real Postgres and NATS', () => {
  it('answers auth/check with the environment and app of the key', async () => {
    const { base } = await gateway();
    for (const [key, env] of [
      [bed.org.test_key, 'test'],
      [bed.org.live_key, 'live'],
    ]) {
      const r = await call(base, '/api/v1/auth/check', { key });
      expect(r.status).toBe(200);
      expect(await json(r)).toEqual({
        data: { authenticated: true, environment: env, connected_app_id: bed.org.connected_app_id, organization_id: bed.org.organization_id },
      });
    }
  });

  it.each([
    ['no header', undefined],
    ['not bearer', 'Basic abc'],
    ['malformed key', 'Bearer svc_prod_abc'],
    ['unknown key', `Bearer svc_test_${'x'.repeat(40)}`],
  ])('refuses %s with 401 unauthorized', async (_name, header) => {
    const { base } = await gateway();
    const r = await call(base, '/api/v1/customers', { headers: header ? { authorization: header } : {} });
    expect(r.status).toBe(401);
    const body = await json(r);
    expect(body.error.code).toBe('unauthorized');
    expect(body.error.request_id).toBe(r.headers.get('request-id'));
    expect(received).toHaveLength(0);
  });

  it('stops accepting a revoked key within the cache TTL', async () => {
    const b = await bootstrap(bed.orm.em.fork(), 'Revoked');
    const { base } = await gateway({ ttlMs: 300 });
    expect((await call(base, '/api/v1/auth/check', { key: b.test_key })).status).toBe(200);
    await revokeApiKey(bed.orm.em.fork(), b.test_key);
    const status = await waitFor(async () => {
      const s = (await call(base, '/api/v1/auth/check', { key: b.test_key })).status;
      return s === 401 ? s : undefined;
    }, 5000);
    expect(status).toBe(401);
    // The live key of the same app is untouched.
    expect((await call(base, '/api/v1/auth/check', { key: b.live_key })).status).toBe(200);
  });

  it('answers 503 service_unavailable, not 500, when its database is gone', async () => {
    const gone = await freshDatabase('acct_gw_gone');
    const goneOrm = await openGatewayOrm(gone.url, 2);
    await migrate(goneOrm);
    const b = await bootstrap(goneOrm.em.fork(), 'Gone');
    const { base } = await gateway({ orm: goneOrm, ttlMs: 0 });
    try {
      expect((await call(base, '/api/v1/auth/check', { key: b.test_key })).status).toBe(200);
      await gone.drop();
      const r = await call(base, '/api/v1/auth/check', { key: b.test_key });
      expect(r.status).toBe(503);
      expect((await json(r)).error.code).toBe('service_unavailable');
    } finally {
      await goneOrm.close(true).catch(() => undefined);
    }
  });

  it('refuses keys of a disabled app with 403 forbidden', async () => {
    const b = await bootstrap(bed.orm.em.fork(), 'Disabled');
    await setAppStatus(bed.orm.em.fork(), b.connected_app_id, 'disabled');
    const { base } = await gateway();
    const r = await call(base, '/api/v1/customers', { key: b.test_key });
    expect(r.status).toBe(403);
    expect((await json(r)).error.code).toBe('forbidden');
  });
});

describe('gateway rate limiting, against real Postgres and NATS', () => {
  it('limits requests by client address before authentication: 429 rate_limited with RateLimit headers', async () => {
    const { base, metrics } = await gateway({ clientRps: 1, clientBurst: 3 });
    const bad = `svc_test_${'Z'.repeat(40)}`;
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 5; i++) {
      last = await call(base, '/api/v1/customers', { key: bad });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect(last!.headers.get('ratelimit-limit')).toBe('3');
    expect(last!.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await json(last!)).error.code).toBe('rate_limited');
    // Unauthenticated paths count too, and a valid key does not get past an exhausted address.
    expect((await call(base, '/api/v1/auth/check', { key: bed.org.test_key })).status).toBe(429);
    expect(await valueOf(metrics.clientRateLimited)).toBe(3);
  });

  it('caches an unknown key: repeating it costs one database lookup within the TTL', async () => {
    const { base, metrics } = await gateway({ ttlMs: 60_000 });
    const unknown = `svc_test_${randomBytes(24).toString('hex')}`;
    for (let i = 0; i < 5; i++) expect((await call(base, '/api/v1/auth/check', { key: unknown })).status).toBe(401);
    expect(await valueOf(metrics.keyLookups, { result: 'database' })).toBe(1);
    expect(await valueOf(metrics.keyLookups, { result: 'cached_unknown' })).toBe(4);
    for (let i = 0; i < 2; i++) expect((await call(base, '/api/v1/auth/check', { key: bed.org.test_key })).status).toBe(200);
    expect(await valueOf(metrics.keyLookups, { result: 'database' })).toBe(2);
    expect(await valueOf(metrics.keyLookups, { result: 'cached' })).toBe(1);
  });

  it('refuses past the burst with 429, Retry-After and RateLimit headers, per key', async () => {
    const { base, metrics } = await gateway({ rps: 1, burst: 3 });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await call(base, '/api/v1/auth/check', { key: bed.org.test_key });
      statuses.push(last.status);
      if (i === 0) {
        expect(last.headers.get('ratelimit-limit')).toBe('3');
        expect(last.headers.get('ratelimit-remaining')).toBe('2');
        expect(last.headers.get('ratelimit-reset')).toBeTruthy();
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last!.headers.get('ratelimit-remaining')).toBe('0');
    expect((await json(last!)).error.code).toBe('rate_limited');
    // Another key has its own bucket.
    expect((await call(base, '/api/v1/auth/check', { key: bed.other.test_key })).status).toBe(200);
    expect(await metrics.registry.getSingleMetricAsString('http_rate_limited_total')).toMatch(/http_rate_limited_total\S* 1/);
  });
});

describe('gateway module guidance, against real Postgres and NATS', () => {
  it('warns when the module is disabled, and refuses under hard enforcement', async () => {
    const b = await bootstrap(bed.orm.em.fork(), 'No customers module');
    await setModules(bed.orm.em.fork(), b.organization_id, [], ['customers']);
    const soft = await gateway();
    const r1 = await call(soft.base, '/api/v1/customers', { key: b.test_key });
    expect(r1.status).toBe(200);
    expect(r1.headers.get('module-warning')).toContain('customers');
    expect((await call(soft.base, '/api/v1/customers', { key: bed.org.test_key })).headers.get('module-warning')).toBeNull();
    const hard = await gateway({ enforcement: 'hard' });
    const r2 = await call(hard.base, '/api/v1/customers', { key: b.test_key });
    expect(r2.status).toBe(403);
    expect((await json(r2)).error.code).toBe('module_disabled');
    // auth/check belongs to no module.
    expect((await call(hard.base, '/api/v1/auth/check', { key: b.test_key })).status).toBe(200);
  });
});
