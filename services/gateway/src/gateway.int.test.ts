import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type NatsConnection } from 'nats';
import { parse } from 'yaml';
import { renderOpenApiYaml } from './openapi';
import { operationsOf, type RpcRequest } from '@acct/contracts';
import { RpcClient, RpcServer, migrate, type Orm } from '@acct/kit';
import { NATS_URL, freshDatabase, silentLogger, uniquePrefix, waitFor, type TestDatabase } from '@acct/testing';
import { createGatewayApp } from './app';
import { openGatewayOrm } from './db';
import { IdempotencyStore } from './idempotency';
import { KeyStore } from './key-store';
import { createGatewayMetrics, type GatewayMetrics } from './metrics';
import { TokenBuckets } from './rate-limit';
import { valueOf } from './testing/fakes';
import { bootstrap, revokeApiKey, setAppStatus, setModules, type Bootstrap } from './admin/admin';

type Handler = (r: RpcRequest) => Promise<any>;

/** fetch's json() is typed unknown; these tests read known shapes. */
const json = (r: Response): Promise<any> => r.json();

describe('gateway against real Postgres and NATS', () => {
  let db: TestDatabase;
  let orm: Orm;
  let nc: NatsConnection;
  let prefix: string;
  let org: Bootstrap;
  let other: Bootstrap;
  const received: RpcRequest[] = [];
  let handlers: Record<string, Handler>;
  let fake: RpcServer | undefined;
  const gateways: http.Server[] = [];

  const defaultHandlers = (): Record<string, Handler> => ({
    'customers.create': async (r) => ({ ok: true, status: 201, body: { data: { id: 'c1', body: r.body }, customer: { id: 'c1' } } }),
    'customers.list': async (r) => ({ ok: true, status: 200, body: { data: [], customers: [], pagination: { ...r.query, count: 0, has_more: false } } }),
    'customers.get': async (r) => ({ ok: true, status: 200, body: { data: { id: r.params.id }, customer: { id: r.params.id } } }),
  });

  function startFake(): void {
    fake = new RpcServer(nc, prefix, 'receivables', silentLogger());
    for (const op of operationsOf('receivables')) {
      fake.handle(op, async (r) => {
        received.push(r as RpcRequest);
        return (handlers[op] ?? (async () => ({ ok: true, status: 200, body: {} })))(r as RpcRequest);
      });
    }
    fake.start();
  }

  async function gateway(
    over: Partial<{
      rps: number;
      burst: number;
      clientRps: number;
      clientBurst: number;
      enforcement: 'soft' | 'hard';
      ttlMs: number;
      timeoutMs: number;
      orm: Orm;
      idempotency: IdempotencyStore;
    }> = {},
  ) {
    const metrics: GatewayMetrics = createGatewayMetrics(false);
    const { app, router } = createGatewayApp({
      keys: new KeyStore(over.orm ?? orm, over.ttlMs ?? 200, metrics),
      idempotency: over.idempotency ?? new IdempotencyStore(over.orm ?? orm, 3600),
      rpc: new RpcClient(nc, prefix, over.timeoutMs ?? 2000, metrics),
      log: silentLogger(),
      metrics,
      buckets: new TokenBuckets(over.rps ?? 1000, over.burst ?? 1000),
      clientBuckets: new TokenBuckets(over.clientRps ?? 1000, over.clientBurst ?? 1000),
      moduleEnforcement: over.enforcement ?? 'soft',
      openapiYaml: renderOpenApiYaml(),
    });
    const handler = app.callback();
    const server = http.createServer((req, res) => void handler(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    gateways.push(server);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { base, router, metrics };
  }

  const call = (base: string, path: string, init: RequestInit & { key?: string; json?: unknown } = {}) => {
    const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
    if (init.key) headers.authorization = `Bearer ${init.key}`;
    let body = init.body;
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    return fetch(`${base}${path}`, { ...init, headers, body });
  };

  beforeAll(async () => {
    db = await freshDatabase('acct_gw_it');
    orm = await openGatewayOrm(db.url, 5);
    await migrate(orm);
    org = await bootstrap(orm.em.fork(), 'Org A');
    other = await bootstrap(orm.em.fork(), 'Org B');
    nc = await connect({ servers: NATS_URL });
    prefix = uniquePrefix();
  });

  beforeEach(() => {
    received.length = 0;
    handlers = defaultHandlers();
    startFake();
  });

  afterEach(async () => {
    await fake?.drain();
    fake = undefined;
  });

  afterAll(async () => {
    await Promise.all(gateways.map((s) => new Promise((r) => s.close(r))));
    await nc.drain();
    await orm.close(true);
    await db.drop();
  });

  describe('authentication', () => {
    it('answers auth/check with the environment and app of the key', async () => {
      const { base } = await gateway();
      for (const [key, env] of [
        [org.test_key, 'test'],
        [org.live_key, 'live'],
      ]) {
        const r = await call(base, '/api/v1/auth/check', { key });
        expect(r.status).toBe(200);
        expect(await json(r)).toEqual({
          data: { authenticated: true, environment: env, connected_app_id: org.connected_app_id, organization_id: org.organization_id },
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
      const b = await bootstrap(orm.em.fork(), 'Revoked');
      const { base } = await gateway({ ttlMs: 300 });
      expect((await call(base, '/api/v1/auth/check', { key: b.test_key })).status).toBe(200);
      await revokeApiKey(orm.em.fork(), b.test_key);
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
      const b = await bootstrap(orm.em.fork(), 'Disabled');
      await setAppStatus(orm.em.fork(), b.connected_app_id, 'disabled');
      const { base } = await gateway();
      const r = await call(base, '/api/v1/customers', { key: b.test_key });
      expect(r.status).toBe(403);
      expect((await json(r)).error.code).toBe('forbidden');
    });
  });

  describe('forwarding', () => {
    it('sends the trusted context from the key, never from the request', async () => {
      const { base } = await gateway();
      const r = await call(base, '/api/v1/customers', { key: org.live_key, method: 'POST', json: { external_customer_id: 'e1', name: 'N' } });
      expect(r.status).toBe(201);
      expect(received[0]?.ctx).toMatchObject({
        organizationId: org.organization_id,
        connectedAppId: org.connected_app_id,
        environment: 'live',
        requestId: r.headers.get('request-id'),
      });
      expect(received[0]?.body).toEqual({ external_customer_id: 'e1', name: 'N' });
    });

    it('applies limit/offset defaults and passes typed values', async () => {
      const { base } = await gateway();
      await call(base, '/api/v1/customers', { key: org.test_key });
      await call(base, '/api/v1/customers?limit=100&offset=100000', { key: org.test_key });
      expect(received.map((r) => r.query)).toEqual([
        { limit: 25, offset: 0 },
        { limit: 100, offset: 100000 },
      ]);
    });

    it('keeps a valid caller X-Request-Id and replaces an invalid one', async () => {
      const { base } = await gateway();
      const kept = await call(base, '/api/v1/auth/check', { key: org.test_key, headers: { 'x-request-id': 'trace-123' } });
      expect(kept.headers.get('request-id')).toBe('trace-123');
      const replaced = await call(base, '/api/v1/auth/check', { key: org.test_key, headers: { 'x-request-id': 'bad id with spaces' } });
      expect(replaced.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('maps a service error reply to its HTTP status unchanged', async () => {
      handlers['customers.get'] = async () => ({ ok: false, error: { code: 'not_found', message: 'Customer x was not found.', details: [] } });
      const { base } = await gateway();
      const r = await call(base, '/api/v1/customers/6f1d1c7e-3f43-4a5e-9a39-2bb9b1d1b1a1', { key: org.test_key });
      expect(r.status).toBe(404);
      expect((await json(r)).error).toMatchObject({ code: 'not_found', message: 'Customer x was not found.' });
    });

    it('answers 503 service_unavailable with Retry-After when the service is down, and recovers', async () => {
      const { base } = await gateway();
      await fake!.drain();
      fake = undefined;
      const r = await call(base, '/api/v1/customers', { key: org.test_key });
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('1');
      expect((await json(r)).error.code).toBe('service_unavailable');
      startFake();
      expect((await call(base, '/api/v1/customers', { key: org.test_key })).status).toBe(200);
    });

    it('answers 503 when the service does not reply within the RPC timeout', async () => {
      handlers['customers.list'] = () => new Promise((r) => setTimeout(() => r({ ok: true, status: 200, body: {} }), 1500));
      const { base } = await gateway({ timeoutMs: 200 });
      const r = await call(base, '/api/v1/customers', { key: org.test_key });
      expect(r.status).toBe(503);
      expect((await json(r)).error.code).toBe('service_unavailable');
    });
  });

  describe('bad input', () => {
    const badBodies: Array<[string, unknown, string, string]> = [
      ['a scope field in the body', { external_customer_id: 'e', name: 'n', organization_id: 'x' }, 'trusted_scope_field_not_allowed', '/organization_id'],
      ['environment in the body', { external_customer_id: 'e', name: 'n', environment: 'live' }, 'trusted_scope_field_not_allowed', '/environment'],
      ['an unknown field', { external_customer_id: 'e', name: 'n', nmae: 'typo' }, 'validation_failed', '/nmae'],
      ['a missing required field', { external_customer_id: 'e' }, 'validation_failed', '/name'],
      ['a bad email', { external_customer_id: 'e', name: 'n', email: 'not-an-email' }, 'validation_failed', '/email'],
      ['a too long name', { external_customer_id: 'e', name: 'x'.repeat(201) }, 'validation_failed', '/name'],
      ['a wrong type', { external_customer_id: 7, name: 'n' }, 'validation_failed', '/external_customer_id'],
    ];
    it.each(badBodies)('refuses %s with 400', async (_n, body, code, field) => {
      const { base } = await gateway();
      const r = await call(base, '/api/v1/customers', { key: org.test_key, method: 'POST', json: body });
      expect(r.status).toBe(400);
      const e = (await json(r)).error;
      expect(e.code).toBe(code);
      expect(e.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(received).toHaveLength(0);
    });

    it.each([
      ['?environment=live', 'trusted_scope_field_not_allowed'],
      ['?organization_id=x', 'trusted_scope_field_not_allowed'],
      ['?mode=live', 'trusted_scope_field_not_allowed'],
      ['?limit=0', 'validation_failed'],
      ['?limit=101', 'validation_failed'],
      ['?limit=abc', 'validation_failed'],
      ['?offset=-1', 'validation_failed'],
      ['?offset=100001', 'validation_failed'],
      ['?limit=1&limit=2', 'validation_failed'],
      ['?colour=red', 'validation_failed'],
    ])('refuses the query %s with 400 %s', async (qs, code) => {
      const { base } = await gateway();
      const r = await call(base, `/api/v1/customers${qs}`, { key: org.test_key });
      expect(r.status).toBe(400);
      expect((await json(r)).error.code).toBe(code);
    });

    it('refuses malformed JSON, a non-object body, a wrong content type and an oversized body', async () => {
      const { base } = await gateway();
      const post = (body: string, type = 'application/json') => call(base, '/api/v1/customers', { key: org.test_key, method: 'POST', body, headers: { 'content-type': type } });
      let r = await post('{"external_customer_id":');
      expect(r.status).toBe(400);
      expect((await json(r)).error).toMatchObject({ code: 'validation_failed', details: [{ issue: 'malformed_json' }] });
      r = await post('[1,2]');
      expect(r.status).toBe(400);
      r = await post('name=x', 'application/x-www-form-urlencoded');
      expect(r.status).toBe(415);
      expect((await json(r)).error.code).toBe('validation_failed');
      r = await post(JSON.stringify({ external_customer_id: 'e', name: 'x'.repeat(1024 * 1024 + 10) }));
      expect(r.status).toBe(413);
      expect((await json(r)).error.code).toBe('validation_failed');
      expect(received).toHaveLength(0);
    });

    it('refuses a bad uuid in the path with 400', async () => {
      const { base } = await gateway();
      const r = await call(base, '/api/v1/customers/not-a-uuid', { key: org.test_key });
      expect(r.status).toBe(400);
      expect((await json(r)).error.details[0]).toMatchObject({ field: 'id', issue: 'invalid_format' });
    });

    it('answers an unknown route with 404 in the envelope', async () => {
      const { base } = await gateway();
      for (const [method, path] of [
        ['GET', '/api/v1/nothing'],
        ['GET', '/'],
      ] as const) {
        const r = await call(base, path, { method, key: org.test_key });
        expect(r.status).toBe(404);
        const body = await json(r);
        expect(body.error.code).toBe('not_found');
        expect(body.error.request_id).toBeTruthy();
      }
    });

    it('answers a method the path lacks with 405 and Allow, in the envelope', async () => {
      const { base } = await gateway();
      const r = await call(base, '/api/v1/customers', { method: 'DELETE', key: org.test_key });
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')?.split(/,\s*/).sort()).toEqual(expect.arrayContaining(['GET', 'POST']));
      const body = await json(r);
      expect(body.error.code).toBe('validation_failed');
      expect(body.error.request_id).toBeTruthy();
    });
  });

  describe('rate limiting', () => {
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
      expect((await call(base, '/api/v1/auth/check', { key: org.test_key })).status).toBe(429);
      expect(await valueOf(metrics.clientRateLimited)).toBe(3);
    });

    it('caches an unknown key: repeating it costs one database lookup within the TTL', async () => {
      const { base, metrics } = await gateway({ ttlMs: 60_000 });
      const unknown = `svc_test_${randomBytes(24).toString('hex')}`;
      for (let i = 0; i < 5; i++) expect((await call(base, '/api/v1/auth/check', { key: unknown })).status).toBe(401);
      expect(await valueOf(metrics.keyLookups, { result: 'database' })).toBe(1);
      expect(await valueOf(metrics.keyLookups, { result: 'cached_unknown' })).toBe(4);
      for (let i = 0; i < 2; i++) expect((await call(base, '/api/v1/auth/check', { key: org.test_key })).status).toBe(200);
      expect(await valueOf(metrics.keyLookups, { result: 'database' })).toBe(2);
      expect(await valueOf(metrics.keyLookups, { result: 'cached' })).toBe(1);
    });

    it('refuses past the burst with 429, Retry-After and RateLimit headers, per key', async () => {
      const { base, metrics } = await gateway({ rps: 1, burst: 3 });
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 4; i++) {
        last = await call(base, '/api/v1/auth/check', { key: org.test_key });
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
      expect((await call(base, '/api/v1/auth/check', { key: other.test_key })).status).toBe(200);
      expect(await metrics.registry.getSingleMetricAsString('http_rate_limited_total')).toMatch(/http_rate_limited_total\S* 1/);
    });
  });

  describe('Idempotency-Key', () => {
    const body = { external_customer_id: 'idem-1', name: 'Idem' };

    it('replays the first response for the same key and request, without calling the service again', async () => {
      const { base } = await gateway();
      const headers = { 'idempotency-key': 'k-1' };
      const first = await call(base, '/api/v1/customers', { key: org.test_key, method: 'POST', json: body, headers });
      const second = await call(base, '/api/v1/customers', { key: org.test_key, method: 'POST', json: body, headers });
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(await json(second)).toEqual(await json(first));
      expect(received).toHaveLength(1);
      // The same key under another API key is a different record.
      const third = await call(base, '/api/v1/customers', { key: org.live_key, method: 'POST', json: body, headers });
      expect(third.headers.get('idempotent-replayed')).toBeNull();
      expect(received).toHaveLength(2);
    });

    it('refuses the same key with a different body with 409 conflict', async () => {
      const { base } = await gateway();
      const headers = { 'idempotency-key': 'k-2' };
      await call(base, '/api/v1/customers', { key: org.test_key, method: 'POST', json: body, headers });
      const r = await call(base, '/api/v1/customers', { key: org.test_key, method: 'POST', json: { ...body, name: 'Other' }, headers });
      expect(r.status).toBe(409);
      expect((await json(r)).error.details[0].issue).toBe('reused_with_different_request');
    });

    it('refuses a repeat while the first is still in flight with 409 conflict', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      handlers['customers.create'] = async () => {
        await gate;
        return { ok: true, status: 201, body: { data: {} } };
      };
      const { base } = await gateway();
      const headers = { 'idempotency-key': 'k-3' };
      const first = call(base, '/api/v1/customers', { key: org.test_key, method: 'POST', json: body, headers });
      await waitFor(async () => received.length === 1);
      const second = await call(base, '/api/v1/customers', { key: org.test_key, method: 'POST', json: body, headers });
      expect(second.status).toBe(409);
      expect((await json(second)).error.details[0].issue).toBe('in_flight');
      release();
      expect((await first).status).toBe(201);
    });

    it('does not keep a 5xx answer: a retry with the same key runs again', async () => {
      const { base } = await gateway();
      await fake!.drain();
      fake = undefined;
      const headers = { 'idempotency-key': 'k-4' };
      expect((await call(base, '/api/v1/customers', { key: org.test_key, method: 'POST', json: body, headers })).status).toBe(503);
      startFake();
      const r = await call(base, '/api/v1/customers', { key: org.test_key, method: 'POST', json: body, headers });
      expect(r.status).toBe(201);
      expect(r.headers.get('idempotent-replayed')).toBeNull();
    });

    it('keeps and replays a 4xx answer of the service', async () => {
      handlers['customers.create'] = async () => ({ ok: false, error: { code: 'conflict', message: 'taken', details: [] } });
      const { base } = await gateway();
      const headers = { 'idempotency-key': 'k-5' };
      const a = await call(base, '/api/v1/customers', { key: org.test_key, method: 'POST', json: body, headers });
      const b = await call(base, '/api/v1/customers', { key: org.test_key, method: 'POST', json: body, headers });
      expect([a.status, b.status]).toEqual([409, 409]);
      expect(b.headers.get('idempotent-replayed')).toBe('true');
      expect(received).toHaveLength(1);
      // The replayed error carries the replay's own request id.
      const replayed = await json(b);
      expect(replayed.error.request_id).toBe(b.headers.get('request-id'));
      expect(replayed.error.request_id).not.toBe(a.headers.get('request-id'));
    });

    it('still answers with the work done when recording the response fails', async () => {
      const idem = new IdempotencyStore(orm, 3600);
      idem.complete = async () => {
        throw new Error('connection lost while recording');
      };
      const { base } = await gateway({ idempotency: idem });
      const r = await call(base, '/api/v1/customers', { key: org.test_key, method: 'POST', json: body, headers: { 'idempotency-key': 'k-rec' } });
      expect(r.status).toBe(201);
      expect(received).toHaveLength(1);
    });

    it('frees a key whose request died in flight (its gateway was killed) after the in-flight bound, not before', async () => {
      const idem = new IdempotencyStore(orm, 3600, 15);
      const apiKeyId = randomUUID();
      expect(await idem.begin(apiKeyId, 'k-crash', 'fp')).toEqual({ kind: 'proceed' });
      // The gateway dies here: no complete(), no release(). A retry 5 s later still waits...
      await orm.em.getConnection().execute(`UPDATE idempotency_keys SET created_at = now() - interval '5 seconds' WHERE key = 'k-crash'`);
      expect(await idem.begin(apiKeyId, 'k-crash', 'fp')).toEqual({ kind: 'in_flight' });
      // ...one after the bound runs the request again.
      await orm.em.getConnection().execute(`UPDATE idempotency_keys SET created_at = now() - interval '16 seconds' WHERE key = 'k-crash'`);
      expect(await idem.begin(apiKeyId, 'k-crash', 'fp')).toEqual({ kind: 'proceed' });
    });

    it('refuses a key longer than 255 characters', async () => {
      const { base } = await gateway();
      for (const path of ['/api/v1/customers', '/api/v1/events']) {
        const json = path.endsWith('events') ? { event_type: 'customer.created', external_event_id: 'e', payload: {} } : body;
        const r = await call(base, path, { key: org.test_key, method: 'POST', json, headers: { 'idempotency-key': 'x'.repeat(256) } });
        expect({ path, status: r.status }).toEqual({ path, status: 400 });
      }
      expect(received).toHaveLength(0);
    });

    it('forwards the key of a route with its own dedupe (POST /events) instead of replaying', async () => {
      const { base } = await gateway();
      const json = { event_type: 'customer.created', external_event_id: 'e-own', payload: {} };
      const headers = { 'idempotency-key': 'own-1' };
      await call(base, '/api/v1/events', { key: org.test_key, method: 'POST', json, headers });
      const second = await call(base, '/api/v1/events', { key: org.test_key, method: 'POST', json, headers });
      expect(second.headers.get('idempotent-replayed')).toBeNull();
      expect(received).toHaveLength(2);
      expect(received[1]?.ctx.idempotencyKey).toBe('own-1');
    });
  });

  describe('module guidance', () => {
    it('warns when the module is disabled, and refuses under hard enforcement', async () => {
      const b = await bootstrap(orm.em.fork(), 'No customers module');
      await setModules(orm.em.fork(), b.organization_id, [], ['customers']);
      const soft = await gateway();
      const r1 = await call(soft.base, '/api/v1/customers', { key: b.test_key });
      expect(r1.status).toBe(200);
      expect(r1.headers.get('module-warning')).toContain('customers');
      expect((await call(soft.base, '/api/v1/customers', { key: org.test_key })).headers.get('module-warning')).toBeNull();
      const hard = await gateway({ enforcement: 'hard' });
      const r2 = await call(hard.base, '/api/v1/customers', { key: b.test_key });
      expect(r2.status).toBe(403);
      expect((await json(r2)).error.code).toBe('module_disabled');
      // auth/check belongs to no module.
      expect((await call(hard.base, '/api/v1/auth/check', { key: b.test_key })).status).toBe(200);
    });
  });

  describe('OpenAPI and metrics', () => {
    it('serves the OpenAPI document without auth, with exactly the routes the router has', async () => {
      const { base, router } = await gateway();
      const r = await fetch(`${base}/developers/openapi.yaml`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toContain('yaml');
      const doc = parse(await r.text());
      const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
        .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
        .sort();
      const routed = router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`)).sort();
      expect(routed).toEqual(documented);
      expect(routed.length).toBeGreaterThan(3);
    });

    it('records http_request_duration_seconds by method, route template and status', async () => {
      const { base, metrics } = await gateway();
      await call(base, '/api/v1/customers/6f1d1c7e-3f43-4a5e-9a39-2bb9b1d1b1a1', { key: org.test_key });
      const text = await metrics.registry.metrics();
      expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*method="GET",route="\/api\/v1\/customers\/\{id\}",status="200"[^}]*\} 1/);
    });
  });
});
