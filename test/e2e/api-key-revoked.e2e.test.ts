import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { buildOpenApi } from '@acct/contracts';
import { shapeOf } from './conformance';
import { admin, bootstrapOrg, client, startE2E, type E2E, type Keys } from './harness';
import { E2E_ENV, expectStatus } from './receivables.helpers';

interface Hit {
  path: string;
  raw: string;
  body: { id: string; type: string; data: Record<string, unknown> };
  headers: http.IncomingHttpHeaders;
}

/** Where the document's recorded webhook bodies are kept (libs/contracts builds them in). */
const RECORDED = path.resolve(__dirname, '..', '..', 'libs', 'contracts', 'src', 'openapi-recorded-webhooks.json');

/**
 * api_key.revoked end to end (API-DECISIONS §13, §15): `npm run admin -- revoke-key` writes it to the
 * gateway's outbox, the gateway's relay publishes it, the dispatcher delivers it, Standard Webhooks
 * signed, to the endpoints of the key's organization, connected app and environment that name it.
 */
describe('e2e: api_key.revoked from the admin CLI to a subscribed endpoint', () => {
  let e2e: E2E;
  let keys: Keys;
  let other: Keys;
  let receiver: http.Server;
  let base: string;
  const hits: Hit[] = [];

  const until = async <T>(f: () => T | undefined, ms = 30_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = f();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error('timed out waiting for a webhook');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const endpoint = async (key: string, p: string, event_types?: string[]): Promise<string> => {
    const r = await client(e2e.base, key)('POST', '/api/v1/webhook-endpoints', { url: `${base}${p}`, ...(event_types ? { event_types } : {}) });
    expectStatus(r, 201);
    return r.json.data.secret as string;
  };

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        hits.push({ path: req.url ?? '/', raw, body: JSON.parse(raw), headers: req.headers });
        res.writeHead(204);
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    e2e = await startE2E({ ...E2E_ENV, OUTBOX_RELAY_INTERVAL_MS: '200', WEBHOOK_POLL_INTERVAL_MS: '100', AUTH_CACHE_TTL_MS: '200' });
    [keys, other] = await Promise.all([bootstrapOrg(e2e.databaseUrl, 'Key events org'), bootstrapOrg(e2e.databaseUrl, 'Other org')]);
  });
  afterAll(async () => {
    await e2e?.stop();
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
  });

  it('delivers a signed api_key.revoked, valid against its OpenAPI schema, only where the key’s scope subscribes to it', async () => {
    const secret = await endpoint(keys.test_key, '/revoked', ['api_key.revoked']);
    // Not delivered: the old default list, another organization (and, below, a key of the live environment).
    await endpoint(keys.test_key, '/default');
    await endpoint(other.test_key, '/other', ['api_key.revoked']);
    const live = JSON.parse(await admin(e2e.databaseUrl, 'create-key', '--app', keys.connected_app_id, '--env', 'live')) as { id: string };
    await admin(e2e.databaseUrl, 'revoke-key', '--key', live.id);

    const created = JSON.parse(await admin(e2e.databaseUrl, 'create-key', '--app', keys.connected_app_id, '--env', 'test')) as { id: string; key: string };
    expectStatus(await client(e2e.base, created.key)('GET', '/api/v1/auth/check'), 200);
    const before = Date.now();
    const revoked = JSON.parse(await admin(e2e.databaseUrl, 'revoke-key', '--key', created.id)) as { id: string; status: string };
    expect(revoked).toMatchObject({ id: created.id, status: 'revoked' });

    const hit = await until(() => hits.find((h) => h.path === '/revoked' && h.body.data.api_key_id === created.id));
    const headers = {
      'webhook-id': String(hit.headers['webhook-id']),
      'webhook-timestamp': String(hit.headers['webhook-timestamp']),
      'webhook-signature': String(hit.headers['webhook-signature']),
    };
    expect(new Webhook(secret).verify(hit.raw, headers)).toEqual(hit.body);
    const revokedAt = hit.body.data.revoked_at as string;
    expect(hit.body).toEqual({
      id: expect.any(String),
      type: 'api_key.revoked',
      created_at: revokedAt,
      environment: 'test',
      organization_id: keys.organization_id,
      connected_app_id: keys.connected_app_id,
      data: { api_key_id: created.id, connected_app_id: keys.connected_app_id, revoked_at: revokedAt },
    });
    expect(Date.parse(revokedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(revokedAt)).toBeLessThanOrEqual(Date.now());

    // The body is what the document's webhooks section says.
    const doc = buildOpenApi() as { webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: object }> } } }>; components: object };
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const valid = ajv.compile({ ...doc.webhooks['api_key.revoked']!.post.requestBody.content['application/json']!.schema, components: doc.components });
    expect([valid(hit.body), valid.errors ?? null]).toEqual([true, null]);
    // The document's example of this webhook is this delivery (UPDATE_OPENAPI_EXAMPLES=1 records it; then npm run sdk:gen).
    const kept = JSON.parse(fs.readFileSync(RECORDED, 'utf8')) as Record<string, unknown>;
    if (process.env.UPDATE_OPENAPI_EXAMPLES === '1') fs.writeFileSync(RECORDED, `${JSON.stringify({ ...kept, 'api_key.revoked': hit.body }, null, 2)}\n`);
    else expect(shapeOf(kept['api_key.revoked'] ?? null)).toEqual(shapeOf(hit.body));

    // Every delivery of the event was created in one transaction with this one: none elsewhere, then or later.
    await new Promise((r) => setTimeout(r, 1500));
    expect(hits.filter((h) => h.path !== '/revoked' || h.body.data.api_key_id === live.id).map((h) => [h.path, h.body.type])).toEqual([]);
    // A second revocation changes nothing and emits nothing.
    await admin(e2e.databaseUrl, 'revoke-key', '--key', created.key);
    await new Promise((r) => setTimeout(r, 1500));
    expect(hits.filter((h) => h.body.data.api_key_id === created.id)).toHaveLength(1);
    expectStatus(await client(e2e.base, created.key)('GET', '/api/v1/auth/check'), 401);
  });
});
