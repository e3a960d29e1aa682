import { parse } from 'yaml';
import { json } from './testing/fakes';
import { gatewayBed } from './testing/int-gateway';

/** What the gateway forwards over NATS and answers back; its OpenAPI document and request metrics. */
const bed = gatewayBed();
const { gateway, call, received } = bed;

describe('gateway forwarding, against real Postgres and NATS', () => {
  it('sends the trusted context from the key, never from the request', async () => {
    const { base } = await gateway();
    const r = await call(base, '/api/v1/customers', { key: bed.org.live_key, method: 'POST', json: { external_customer_id: 'e1', name: 'N' } });
    expect(r.status).toBe(201);
    expect(received[0]?.ctx).toMatchObject({
      organizationId: bed.org.organization_id,
      connectedAppId: bed.org.connected_app_id,
      environment: 'live',
      requestId: r.headers.get('request-id'),
    });
    expect(received[0]?.body).toEqual({ external_customer_id: 'e1', name: 'N' });
  });

  it('applies limit/offset defaults and passes typed values', async () => {
    const { base } = await gateway();
    await call(base, '/api/v1/customers', { key: bed.org.test_key });
    await call(base, '/api/v1/customers?limit=100&offset=100000', { key: bed.org.test_key });
    expect(received.map((r) => r.query)).toEqual([
      { limit: 25, offset: 0 },
      { limit: 100, offset: 100000 },
    ]);
  });

  it('keeps a valid caller X-Request-Id and replaces an invalid one', async () => {
    const { base } = await gateway();
    const kept = await call(base, '/api/v1/auth/check', { key: bed.org.test_key, headers: { 'x-request-id': 'trace-123' } });
    expect(kept.headers.get('request-id')).toBe('trace-123');
    const replaced = await call(base, '/api/v1/auth/check', { key: bed.org.test_key, headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('maps a service error reply to its HTTP status unchanged', async () => {
    bed.handlers['customers.get'] = async () => ({ ok: false, error: { code: 'not_found', message: 'Customer x was not found.', details: [] } });
    const { base } = await gateway();
    const r = await call(base, '/api/v1/customers/6f1d1c7e-3f43-4a5e-9a39-2bb9b1d1b1a1', { key: bed.org.test_key });
    expect(r.status).toBe(404);
    expect((await json(r)).error).toMatchObject({ code: 'not_found', message: 'Customer x was not found.' });
  });

  // The gateway would wait 60 s for a reply; the test gives up after 10 s: the 503 comes from NATS's
  // no-responders status at once, not from the RPC timeout.
  it('answers 503 service_unavailable with Retry-After at once when the service is down, and recovers', async () => {
    const { base } = await gateway({ timeoutMs: 60_000 });
    await bed.stopFake();
    const r = await call(base, '/api/v1/customers', { key: bed.org.test_key });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(await json(r)).toEqual({
      error: {
        code: 'service_unavailable',
        message: 'The customers service is unavailable: no instance is running. Retry later.',
        details: [],
        request_id: r.headers.get('request-id'),
      },
    });
    bed.startFake();
    expect((await call(base, '/api/v1/customers', { key: bed.org.test_key })).status).toBe(200);
  }, 10_000);

  it('answers 503 when the service does not reply within the RPC timeout', async () => {
    bed.handlers['customers.list'] = () => new Promise((r) => setTimeout(() => r({ ok: true, status: 200, body: {} }), 1500));
    const { base } = await gateway({ timeoutMs: 200 });
    const r = await call(base, '/api/v1/customers', { key: bed.org.test_key });
    expect(r.status).toBe(503);
    expect((await json(r)).error.code).toBe('service_unavailable');
  });
});

describe('gateway OpenAPI and metrics, against real Postgres and NATS', () => {
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
    await call(base, '/api/v1/customers/6f1d1c7e-3f43-4a5e-9a39-2bb9b1d1b1a1', { key: bed.org.test_key });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*method="GET",route="\/api\/v1\/customers\/\{id\}",status="200"[^}]*\} 1/);
  });
});
