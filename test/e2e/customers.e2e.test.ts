import { randomUUID } from 'node:crypto';
import { parse } from 'yaml';
import { ROUTES, compileBody, schemas } from '@acct/contracts';
import { waitFor } from '@acct/testing';
import { type E2E, type Keys, admin, bootstrapOrg, client, startE2E } from './harness';

const validCustomer = compileBody(schemas.customers.customerResponse);
const validList = compileBody(schemas.customers.customerListResponse);

describe('e2e: customers through the gateway of a running stack', () => {
  let e2e: E2E;
  let keys: Keys;
  let other: Keys;

  beforeAll(async () => {
    e2e = await startE2E({ AUTH_CACHE_TTL_MS: '300' });
    keys = await bootstrapOrg(e2e.databaseUrl, 'Walkthrough');
    other = await bootstrapOrg(e2e.databaseUrl, 'Someone else');
  });
  afterAll(async () => e2e?.stop());

  it('bootstrap --json prints exactly one JSON object with the four fields', async () => {
    const out = await admin(e2e.databaseUrl, 'bootstrap', '--json');
    expect(out.trim().split('\n')).toHaveLength(1);
    const b = JSON.parse(out);
    expect(Object.keys(b).sort()).toEqual(['connected_app_id', 'live_key', 'organization_id', 'test_key']);
    expect(b.test_key).toMatch(/^svc_test_[0-9A-Za-z]{32,}$/);
    expect(b.live_key).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);
  });

  it('walks through the README: auth check, create, replay, conflict, read, list', async () => {
    const api = client(e2e.base, keys.test_key);
    const check = await api('GET', '/api/v1/auth/check');
    expect(check.status).toBe(200);
    expect(check.json.data).toMatchObject({ authenticated: true, environment: 'test', connected_app_id: keys.connected_app_id });

    const body = { external_customer_id: 'cus_1001', name: 'Ada Lovelace', email: 'ada@example.com' };
    const created = await api('POST', '/api/v1/customers', body);
    expect(created.status).toBe(201);
    expect(validCustomer(created.json)).toBe(true);
    expect(created.json.customer).toEqual(created.json.data);
    const id = created.json.data.id;

    const replay = await api('POST', '/api/v1/customers', body);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.data.id).toBe(id);

    const conflict = await api('POST', '/api/v1/customers', { ...body, email: 'other@example.com' });
    expect(conflict.status).toBe(409);
    expect(conflict.json.error.code).toBe('conflict');

    const got = await api('GET', `/api/v1/customers/${id}`);
    expect(got.status).toBe(200);
    expect(got.json.data).toEqual(created.json.data);

    await api('POST', '/api/v1/customers', { external_customer_id: 'cus_1002', name: 'Grace Hopper' });
    const page1 = await api('GET', '/api/v1/customers?limit=1');
    expect(page1.status).toBe(200);
    expect(validList(page1.json)).toBe(true);
    expect(page1.json.data[0].name).toBe('Grace Hopper');
    expect(page1.json.pagination).toEqual({ limit: 1, offset: 0, count: 1, has_more: true });
    const page2 = await api('GET', '/api/v1/customers?limit=1&offset=1');
    expect(page2.json.data[0].id).toBe(id);
  });

  it('isolates organizations and test/live environments (404, empty lists)', async () => {
    const mine = client(e2e.base, keys.test_key);
    const { json } = await mine('POST', '/api/v1/customers', { external_customer_id: `iso-${randomUUID()}`, name: 'Mine' });
    const id = json.data.id;
    for (const key of [other.test_key, keys.live_key]) {
      const them = client(e2e.base, key);
      const r = await them('GET', `/api/v1/customers/${id}`);
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe('not_found');
      expect((await them('GET', '/api/v1/customers')).json.data.map((c: { id: string }) => c.id)).not.toContain(id);
    }
  });

  it('replays a POST with the same Idempotency-Key and refuses it with another body', async () => {
    const api = client(e2e.base, keys.test_key);
    const h = { 'idempotency-key': randomUUID() };
    const body = { external_customer_id: `idem-${randomUUID()}`, name: 'Idem' };
    const a = await api('POST', '/api/v1/customers', body, h);
    const b = await api('POST', '/api/v1/customers', body, h);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.json).toEqual(a.json);
    const c = await api('POST', '/api/v1/customers', { ...body, name: 'Changed' }, h);
    expect(c.status).toBe(409);
  });

  it('answers every bad input in the error envelope with Request-Id', async () => {
    const api = client(e2e.base, keys.test_key);
    const cases: Array<[string, Promise<{ status: number; json: any; headers: Headers }>, number, string]> = [
      ['no key', client(e2e.base)('GET', '/api/v1/customers'), 401, 'unauthorized'],
      ['bad key', client(e2e.base, 'svc_test_short')('GET', '/api/v1/customers'), 401, 'unauthorized'],
      [
        'scope field in body',
        api('POST', '/api/v1/customers', { external_customer_id: 'x', name: 'x', connected_app_id: keys.connected_app_id }),
        400,
        'trusted_scope_field_not_allowed',
      ],
      ['scope field in query', api('GET', '/api/v1/customers?environment=live'), 400, 'trusted_scope_field_not_allowed'],
      ['unknown field', api('POST', '/api/v1/customers', { external_customer_id: 'x', name: 'x', phone: '1' }), 400, 'validation_failed'],
      ['malformed JSON', api('POST', '/api/v1/customers', '{"name": "x",'), 400, 'validation_failed'],
      ['oversized body', api('POST', '/api/v1/customers', JSON.stringify({ external_customer_id: 'x', name: 'y'.repeat(1_100_000) })), 413, 'validation_failed'],
      ['wrong content type', api('POST', '/api/v1/customers', 'hello', { 'content-type': 'text/plain' }), 415, 'validation_failed'],
      ['bad uuid', api('GET', '/api/v1/customers/123'), 400, 'validation_failed'],
      ['bad limit', api('GET', '/api/v1/customers?limit=500'), 400, 'validation_failed'],
      ['unknown route', api('GET', '/api/v1/ledgers'), 404, 'not_found'],
      ['unknown customer', api('GET', `/api/v1/customers/${randomUUID()}`), 404, 'not_found'],
    ];
    for (const [name, pending, status, code] of cases) {
      const r = await pending;
      expect({ name, status: r.status, code: r.json?.error?.code }).toEqual({ name, status, code });
      expect(r.json.error.request_id).toBe(r.headers.get('request-id'));
      expect(Array.isArray(r.json.error.details)).toBe(true);
    }
  });

  it('stops accepting a key revoked with the admin CLI within seconds', async () => {
    const b = await bootstrapOrg(e2e.databaseUrl, 'To revoke');
    const api = client(e2e.base, b.test_key);
    expect((await api('GET', '/api/v1/auth/check')).status).toBe(200);
    await admin(e2e.databaseUrl, 'revoke-key', '--key', b.test_key);
    const r = await waitFor(async () => {
      const res = await api('GET', '/api/v1/auth/check');
      return res.status === 401 ? res : undefined;
    }, 5000);
    expect(r.json.error.code).toBe('unauthorized');
  });

  it('dev-key (npm start) keeps one development organization and issues a fresh working key each time', async () => {
    const first = JSON.parse(await admin(e2e.databaseUrl, 'dev-key', '--json'));
    const second = JSON.parse(await admin(e2e.databaseUrl, 'dev-key', '--json'));
    expect(second.organization_id).toBe(first.organization_id);
    expect(second.connected_app_id).toBe(first.connected_app_id);
    expect(second.test_key).not.toBe(first.test_key);
    for (const k of [first.test_key, second.test_key]) {
      const r = await client(e2e.base, k)('GET', '/api/v1/auth/check');
      expect(r.status).toBe(200);
      expect(r.json.data).toMatchObject({ organization_id: first.organization_id, environment: 'test' });
    }
  });

  it('runs the dashboard commands of the admin CLI end to end', async () => {
    const org = JSON.parse(await admin(e2e.databaseUrl, 'create-org', '--name', 'CLI org'));
    const app = JSON.parse(await admin(e2e.databaseUrl, 'create-app', '--org', org.id, '--name', 'CLI app'));
    const created = JSON.parse(await admin(e2e.databaseUrl, 'create-key', '--app', app.id, '--env', 'live'));
    expect(created.key).toMatch(/^svc_live_/);
    const api = client(e2e.base, created.key);
    const check = await api('GET', '/api/v1/auth/check');
    expect(check.json.data).toMatchObject({ environment: 'live', connected_app_id: app.id, organization_id: org.id });

    // Keys are listed without the key or its hash.
    const listed = await admin(e2e.databaseUrl, 'list-keys', '--app', app.id);
    expect(listed).toContain(created.id);
    expect(listed).not.toContain(created.key);
    expect(listed).not.toMatch(/keyHash|key_hash/);

    // Disabling a module shows as a Module-Warning within the cache TTL.
    const modules = JSON.parse(await admin(e2e.databaseUrl, 'modules', '--org', org.id, '--disable', 'customers'));
    expect(modules.enabled_modules).not.toContain('customers');
    const warned = await waitFor(async () => {
      const r = await api('GET', '/api/v1/customers');
      return r.headers.get('module-warning') ? r : undefined;
    }, 5000);
    expect(warned.status).toBe(200);

    // A disabled app's keys are refused with 403.
    await admin(e2e.databaseUrl, 'disable-app', '--app', app.id);
    const refused = await waitFor(async () => {
      const r = await api('GET', '/api/v1/auth/check');
      return r.status === 403 ? r : undefined;
    }, 5000);
    expect(refused.json.error.code).toBe('forbidden');

    // Bad input to the CLI fails with a message, not a stack of nonsense.
    await expect(admin(e2e.databaseUrl, 'create-key', '--app', app.id, '--env', 'prod')).rejects.toThrow(/--env must be test or live/);
  });

  it('publishes the OpenAPI document of exactly the routes that exist', async () => {
    const r = await client(e2e.base)('GET', '/developers/openapi.yaml');
    expect(r.status).toBe(200);
    const doc = parse(r.text);
    expect(doc.openapi).toBe('3.1.0');
    const documented = Object.entries(doc.paths as Record<string, object>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    expect(documented.sort()).toEqual(ROUTES.map((x) => `${x.method} ${x.path}`).sort());
  });

  it('exposes metrics, health and readiness on every ops port', async () => {
    for (const [name, svc] of e2e.stack.services) {
      const ops = `http://127.0.0.1:${svc.opsPort}`;
      expect({ name, status: (await fetch(`${ops}/healthz`)).status }).toEqual({ name, status: 200 });
      // Readiness probes Postgres and NATS with a 2 s budget each: on a starved machine one probe
      // can miss it, so the assertion is that the service becomes ready, not that one probe passes.
      const ready = await waitFor(async () => ((await fetch(`${ops}/readyz`)).status === 200 ? 200 : undefined), 20_000);
      expect({ name, status: ready }).toEqual({ name, status: 200 });
      const metrics = await (await fetch(`${ops}/metrics`)).text();
      // The label names the service; a replica (`name#1` here) is told apart by Prometheus' instance.
      expect(metrics).toContain(`service="${svc.def.name}"`);
    }
    // With replicas (E2E_CLUSTER=1) a request reached one of them: read the service's metrics from all.
    const metricsOf = async (service: string) =>
      (
        await Promise.all([...e2e.stack.services.values()].filter((s) => s.def.name === service).map(async (s) => (await fetch(`http://127.0.0.1:${s.opsPort}/metrics`)).text()))
      ).join('\n');
    expect(await metricsOf('gateway')).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/api\/v1\/customers"/);
    expect(await metricsOf('receivables')).toMatch(/nats_rpc_server_duration_seconds_count\{[^}]*operation="customers.create"/);
  });
});
