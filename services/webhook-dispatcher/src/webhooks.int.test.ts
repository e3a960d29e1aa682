import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { type RpcOperation, type TrustedContext, eventsStreamName, outboundSubject } from '@acct/contracts';
import { ensureEventsStream } from '@acct/kit';
import { type TestService, ctx as newCtx, startServiceForTest } from '@acct/testing';
import type { WebhookConfig } from './config';
import { parseSchedule } from './domain/schedule';
import { claimDue } from './flows/deliveries';
import { webhookDispatcherService } from './service';
import { startDelivery } from './workers/delivery';

/** The receiver's own check of a delivery (not the service's code): signature and a 5-minute window. */
function verify(secret: string, headers: http.IncomingHttpHeaders, raw: string, nowS = Math.floor(Date.now() / 1000)): boolean {
  const ts = Number(headers['service-timestamp']);
  const sig = String(headers['service-signature'] ?? '');
  if (!Number.isInteger(ts) || Math.abs(nowS - ts) > 300) return false;
  const want = createHmac('sha256', secret).update(`${ts}.${raw}`).digest();
  const got = Buffer.from(sig, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
}

describe('webhook dispatcher against real Postgres, JetStream and an HTTP receiver', () => {
  let svc: TestService;
  let stopDelivery: () => Promise<void>;
  let receiver: http.Server;
  let base: string;
  const received: Received[] = [];
  const failuresLeft = new Map<string, number>();
  const logLines: string[] = [];
  const config: WebhookConfig = {
    secretKey: Buffer.alloc(32, 7),
    retrySchedule: parseSchedule('300ms,300ms,300ms'),
    timeoutMs: 1000,
    concurrency: 16,
    endpointConcurrency: 2,
    pollIntervalMs: 50,
    disableAfterMs: 3 * 86_400_000,
    // The receiver is on 127.0.0.1, as with `npm start`; the block below turns the rule back on.
    allowPrivateUrls: true,
  };
  const appA: { organizationId: string; connectedAppId: string } = { organizationId: randomUUID(), connectedAppId: randomUUID() };
  const ctx = (env: 'test' | 'live', app: { organizationId: string; connectedAppId: string } = appA): TrustedContext => newCtx({ ...app, environment: env });
  const call = async (op: RpcOperation, c: TrustedContext, req: { body?: unknown; params?: Record<string, string>; query?: Record<string, unknown> } = {}) =>
    svc.call(op, c, { params: req.params ?? {}, query: req.query ?? {}, body: req.body });
  const create = async (c: TrustedContext, url: string, event_types?: string[]) => {
    const r = (await call('webhook_endpoints.create', c, { body: { url, ...(event_types ? { event_types } : {}) } })) as {
      ok: boolean;
      body: { data: { id: string; secret: string } };
    };
    return r;
  };
  const publish = async (c: TrustedContext, type: 'invoice.posted' | 'payment.posted', data: Record<string, unknown>) => {
    const id = randomUUID();
    const payload = { id, type, created_at: new Date().toISOString(), organization_id: c.organizationId, connected_app_id: c.connectedAppId, environment: c.environment, data };
    await svc.nc.jetstream().publish(outboundSubject(svc.prefix, type), JSON.stringify(payload), { msgID: id });
    return id;
  };
  const until = async <T>(f: () => T | undefined | Promise<T | undefined>, ms = 10_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await f();
      if (v !== undefined && v !== false) return v;
      if (Date.now() > end) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const deliveries = async (c: TrustedContext, id: string) =>
    (
      (await call('webhook_endpoints.deliveries', c, { params: { id } })) as {
        body: {
          data: {
            id: string;
            status: string;
            attempt_count: number;
            next_attempt_at: string | null;
            attempts: { status_code: number | null; error: string | null; response_body: string | null }[];
          }[];
        };
      }
    ).body.data;

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const path = req.url ?? '/';
        received.push({ path, headers: req.headers, raw });
        if (path.startsWith('/hang')) return; // never answers
        if (path.startsWith('/redirect')) {
          res.writeHead(302, { location: `${base}/ok-after-redirect` });
          res.end();
          return;
        }
        const left = failuresLeft.get(path) ?? 0;
        if (left > 0) {
          failuresLeft.set(path, left - 1);
          res.writeHead(500);
          res.end('x'.repeat(5000));
          return;
        }
        res.writeHead(200);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const log = pino(
      { level: 'debug' },
      new Writable({
        write(chunk, _e, cb) {
          logLines.push(String(chunk));
          cb();
        },
      }),
    );
    const def = webhookDispatcherService({ config, resolve: async (h) => (h === 'internal.example.com' ? ['10.1.2.3'] : ['93.184.216.34']) });
    // The workers are started here rather than by the service, so that a test can stop them (a crash) and start them again.
    svc = await startServiceForTest(def, { log });
    // The stream the posting services create: the dispatcher only consumes it.
    await ensureEventsStream(svc.nc, svc.prefix);
    ({ stop: stopDelivery } = await startDelivery(svc.wiring, config));
  });

  afterAll(async () => {
    await stopDelivery?.();
    if (svc) await (await svc.nc.jetstreamManager()).streams.delete(eventsStreamName(svc.prefix)).catch(() => undefined);
    await svc?.stop();
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
  });

  it('delivers a signed event the receiver verifies; a tampered body or an old timestamp fails its check', async () => {
    const c = ctx('test');
    const ep = await create(c, `${base}/signed`);
    expect(ep.ok).toBe(true);
    const secret = ep.body.data.secret;
    expect(secret).toMatch(/^whsec_/);
    const eventId = await publish(c, 'invoice.posted', { invoice_id: randomUUID() });
    const got = await until(() => received.find((r) => r.path === '/signed'));
    const body = JSON.parse(got.raw);
    expect(body).toMatchObject({ type: 'invoice.posted', organization_id: appA.organizationId, connected_app_id: appA.connectedAppId, environment: 'test' });
    expect(got.headers['service-event-id']).toBe(body.id);
    expect(body.id).not.toBe(eventId);
    expect(verify(secret, got.headers, got.raw)).toBe(true);
    expect(verify(secret, got.headers, got.raw.replace('invoice.posted', 'invoice.paid'))).toBe(false);
    expect(verify(secret, got.headers, got.raw, Number(got.headers['service-timestamp']) + 3600)).toBe(false);
    expect(verify('whsec_other', got.headers, got.raw)).toBe(false);
    // Standard Webhooks, checked by a verifier nobody here wrote (the standardwebhooks package).
    const std = {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    };
    expect(std['webhook-id']).toBe(body.id);
    expect(std['webhook-timestamp']).toBe(got.headers['service-timestamp']);
    expect(new Webhook(secret).verify(got.raw, std)).toEqual(body);
    expect(() => new Webhook(secret).verify(got.raw.replace('invoice.posted', 'invoice.paid'), std)).toThrow();
    expect(() => new Webhook(secret).verify(got.raw, { ...std, 'webhook-id': randomUUID() })).toThrow();
    // The secret is never shown again, nor stored or logged in clear.
    const read = JSON.stringify([await call('webhook_endpoints.get', c, { params: { id: ep.body.data.id } }), await call('webhook_endpoints.list', c)]);
    expect(read).not.toContain(secret);
    const stored = await svc.sql(`SELECT secret_encrypted FROM webhook_endpoints WHERE id = ?`, [ep.body.data.id]);
    expect(JSON.stringify(stored)).not.toContain(secret.slice(6));
    expect(logLines.join('')).not.toContain(secret.slice(6));
  });

  it('retries a failing receiver with the same delivery id: fail, fail, then 2xx gives three attempts', async () => {
    const c = ctx('test');
    failuresLeft.set('/flaky', 2);
    const ep = await create(c, `${base}/flaky`, ['payment.posted']);
    await publish(c, 'payment.posted', { payment_id: randomUUID() });
    const [d] = await until(async () => {
      const list = await deliveries(c, ep.body.data.id);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(d!.attempts.map((a) => a.status_code)).toEqual([500, 500, 200]);
    expect(d!.attempts[0]!.response_body).toHaveLength(1024);
    const ids = received.filter((r) => r.path === '/flaky').map((r) => r.headers['service-event-id']);
    expect(ids).toHaveLength(3);
    expect(new Set(ids)).toEqual(new Set([d!.id]));
  });

  it('cuts a hanging receiver at the timeout and does not follow a redirect', async () => {
    const c = ctx('test');
    const hang = await create(c, `${base}/hang`);
    const redirect = await create(c, `${base}/redirect`);
    await publish(c, 'invoice.posted', { invoice_id: randomUUID() });
    const [h] = await until(async () => {
      const list = await deliveries(c, hang.body.data.id);
      return list[0]?.attempts.length ? list : undefined;
    });
    expect(h!.attempts[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/timeout/) });
    const [r] = await until(async () => {
      const list = await deliveries(c, redirect.body.data.id);
      return list[0]?.attempts.length ? list : undefined;
    });
    expect(r!.attempts[0]).toMatchObject({ status_code: 302, error: expect.stringMatching(/redirect .* not followed/) });
    expect(received.some((x) => x.path === '/ok-after-redirect')).toBe(false);
    await call('webhook_endpoints.delete', c, { params: { id: hang.body.data.id } });
    await call('webhook_endpoints.delete', c, { params: { id: redirect.body.data.id } });
  });

  it('delivers nothing to the endpoints of another app or environment', async () => {
    const mine = ctx('test', { organizationId: randomUUID(), connectedAppId: randomUUID() });
    const otherApp = ctx('test', { organizationId: mine.organizationId, connectedAppId: randomUUID() });
    const otherEnv = { ...mine, environment: 'live' as const };
    await create(mine, `${base}/mine`);
    const app = await create(otherApp, `${base}/other-app`);
    // A live endpoint cannot be http://127.0.0.1; its table row stands in for one.
    const envId = randomUUID();
    await svc.sql(
      `INSERT INTO webhook_endpoints (id, organization_id, connected_app_id, environment, url, event_types, status, secret_encrypted, created_at) SELECT ?, organization_id, connected_app_id, ?, ?, event_types, status, secret_encrypted, now() FROM webhook_endpoints WHERE url = ?`,
      [envId, otherEnv.environment, `${base}/other-env`, `${base}/mine`],
    );
    const others = [app.body.data.id, envId];
    // Both stand-ins are enabled endpoints of the same organization subscribed to the type: only
    // their app or environment keeps them out.
    const rows = await svc.sql(
      `SELECT environment, status, 'invoice.posted' = ANY(event_types) AS subscribed FROM webhook_endpoints WHERE id = ANY(?::uuid[]) ORDER BY environment`,
      [`{${others.join(',')}}`],
    );
    expect(rows).toEqual([
      { environment: 'live', status: 'enabled', subscribed: true },
      { environment: 'test', status: 'enabled', subscribed: true },
    ]);
    const eventId = await publish(mine, 'invoice.posted', { invoice_id: randomUUID() });
    await until(() => received.find((r) => r.path === '/mine'));
    // The event's deliveries are made in one transaction, committed before any is sent: once /mine got
    // its delivery, every delivery the event will ever have exists.
    const made = await svc.sql(`SELECT endpoint_id FROM webhook_deliveries WHERE event_id = ?`, [eventId]);
    expect(made).toHaveLength(1);
    expect(others).not.toContain(made[0]!.endpoint_id);
    expect(received.filter((r) => r.path === '/other-app' || r.path === '/other-env')).toEqual([]);
  });

  it('parks non-JSON, id-less and envelope-less messages on the outbound subjects with their raw bytes, delivering nothing', async () => {
    const js = svc.nc.jetstream();
    const subject = outboundSubject(svc.prefix, 'invoice.posted');
    const bytes = [
      Uint8Array.from([0xc3, 0x28, 0x00]),
      new TextEncoder().encode('{"type":"invoice.posted"}'),
      new TextEncoder().encode(JSON.stringify({ id: randomUUID(), type: 'invoice.posted', data: {} })),
    ];
    const seqs: number[] = [];
    for (const b of bytes) seqs.push((await js.publish(subject, b)).seq);
    const rows = await until(async () => {
      const r = await svc.sql(`SELECT stream_seq::int AS seq, reason, raw FROM parked_events WHERE stream_seq = ANY(?::bigint[]) ORDER BY stream_seq`, [`{${seqs.join(',')}}`]);
      return r.length === 3 ? r : undefined;
    });
    expect(rows.map((r) => [r.seq, r.reason])).toEqual([
      [seqs[0], 'malformed'],
      [seqs[1], 'malformed'],
      [seqs[2], 'refused'],
    ]);
    rows.forEach((r, i) => expect(Buffer.from(r.raw).equals(Buffer.from(bytes[i]!))).toBe(true));
    const consumed = await svc.metrics.registry.getSingleMetricAsString('events_consumed_total');
    expect(consumed).toMatch(/consumer="webhook-dispatcher-outbound",outcome="malformed"[^}]*} 2/);
    expect(consumed).toMatch(/consumer="webhook-dispatcher-outbound",outcome="refused"[^}]*} 1/);
    expect(await svc.metrics.registry.getSingleMetricAsString('events_parked_messages')).toMatch(/consumer="webhook-dispatcher-outbound"[^}]*} 3/);
  });

  it('sends a webhook.test delivery on request', async () => {
    const c = ctx('test');
    const ep = await create(c, `${base}/test-action`);
    const r = (await call('webhook_endpoints.test', c, { params: { id: ep.body.data.id } })) as { body: { data: { id: string; event_type: string } } };
    expect(r.body.data.event_type).toBe('webhook.test');
    const got = await until(() => received.find((x) => x.path === '/test-action'));
    expect(JSON.parse(got.raw)).toMatchObject({ id: r.body.data.id, type: 'webhook.test', data: { endpoint_id: ep.body.data.id } });
  });

  it('a slow endpoint does not delay the others', async () => {
    const c = ctx('test', { organizationId: randomUUID(), connectedAppId: randomUUID() });
    const slow = await create(c, `${base}/hang-slow`, ['invoice.posted']);
    await create(c, `${base}/fast`, ['payment.posted']);
    for (let i = 0; i < 6; i++) await publish(c, 'invoice.posted', { invoice_id: randomUUID() });
    await until(() => received.filter((r) => r.path === '/hang-slow').length >= 2 || undefined);
    const t0 = Date.now();
    await publish(c, 'payment.posted', { payment_id: randomUUID() });
    await until(() => received.find((r) => r.path === '/fast'));
    expect(Date.now() - t0).toBeLessThan(500); // each send to the slow endpoint takes the 1 s timeout
    expect(received.filter((r) => r.path === '/hang-slow').length).toBeLessThanOrEqual(config.endpointConcurrency);
    await call('webhook_endpoints.delete', c, { params: { id: slow.body.data.id } });
  });

  it('a worker that dies mid-send leaves a delivery that is retried, not lost', async () => {
    const c = ctx('test', { organizationId: randomUUID(), connectedAppId: randomUUID() });
    await stopDelivery();
    const ep = await create(c, `${base}/after-crash`);
    await call('webhook_endpoints.test', c, { params: { id: ep.body.data.id } });
    // A worker claims it (its lease: 300 ms) and dies before sending.
    const claimed = await claimDue(svc.orm.em.fork(), { limit: 10, leaseMs: 300, saturated: [], slots: () => 10 });
    expect(claimed.map((d) => d.endpoint_id)).toContain(ep.body.data.id);
    ({ stop: stopDelivery } = await startDelivery(svc.wiring, config));
    const [d] = await until(async () => {
      const list = await deliveries(c, ep.body.data.id);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(d!.attempt_count).toBe(2);
    expect(d!.attempts.map((a) => a.status_code)).toEqual([200]);
    expect(received.filter((r) => r.path === '/after-crash')).toHaveLength(1);
  });

  it('reports the due backlog: overdue deliveries count, a retry waiting for its time does not', async () => {
    const c = ctx('test', { organizationId: randomUUID(), connectedAppId: randomUUID() });
    await stopDelivery();
    try {
      const ep = await create(c, `${base}/backlog`);
      for (let i = 0; i < 2; i++) await call('webhook_endpoints.test', c, { params: { id: ep.body.data.id } });
      const [overdue, waiting] = await deliveries(c, ep.body.data.id);
      await svc.sql(`UPDATE webhook_deliveries SET next_attempt_at = now() - interval '10 minutes' WHERE id = ?`, [overdue!.id]);
      await svc.sql(`UPDATE webhook_deliveries SET next_attempt_at = now() + interval '1 hour' WHERE id = ?`, [waiting!.id]);
      const gauge = async (name: string) => {
        const text = await svc.metrics.registry.getSingleMetricAsString(name);
        return Number(/\} (\S+)$/m.exec(text)?.[1] ?? /^\S+ (\S+)$/m.exec(text)?.[1]);
      };
      // Other tests' deliveries may be pending too: compare with what these two add.
      const [due, dueAge, pending] = [await gauge('webhook_deliveries_due'), await gauge('webhook_oldest_due_seconds'), await gauge('webhook_deliveries_pending')];
      expect(due).toBeGreaterThanOrEqual(1);
      expect(pending - due).toBeGreaterThanOrEqual(1);
      expect(dueAge).toBeGreaterThanOrEqual(599);
      expect(dueAge).toBeLessThan(86_400);
    } finally {
      ({ stop: stopDelivery } = await startDelivery(svc.wiring, config));
    }
  });

  it('disables an endpoint whose deliveries have all failed for 3 days, and says so', async () => {
    const c = ctx('test', { organizationId: randomUUID(), connectedAppId: randomUUID() });
    failuresLeft.set('/always-fails', 1000);
    const ep = await create(c, `${base}/always-fails`);
    await svc.sql(`UPDATE webhook_endpoints SET failing_since = now() - interval '3 days 1 minute' WHERE id = ?`, [ep.body.data.id]);
    await publish(c, 'invoice.posted', { invoice_id: randomUUID() });
    const got = await until(async () => {
      const r = (await call('webhook_endpoints.get', c, { params: { id: ep.body.data.id } })) as { body: { data: { status: string; disabled_reason: string | null } } };
      return r.body.data.status === 'disabled' ? r.body.data : undefined;
    });
    expect(got.disabled_reason).toMatch(/every delivery failed since/);
    expect((await deliveries(c, ep.body.data.id))[0]).toMatchObject({ status: 'failed', attempts: [{ status_code: 500 }] });
    const test = (await call('webhook_endpoints.test', c, { params: { id: ep.body.data.id } })) as { ok: boolean; error?: { code: string } };
    expect(test).toMatchObject({ ok: false, error: { code: 'conflict' } });
  });

  describe('endpoint management (API-DECISIONS §11)', () => {
    type Ep = {
      id: string;
      url: string;
      status: string;
      disabled_reason: string | null;
      metadata: Record<string, string>;
      previous_secret_expires_at: string | null;
      secret?: string;
    };
    type Reply<T> = { ok: boolean; status?: number; body: { data: T }; error?: { code: string; details: { field: string; issue: string }[] } };
    const std = (got: Received) => ({
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    });
    const fresh = () => ctx('test', { organizationId: randomUUID(), connectedAppId: randomUUID() });
    const patch = async (c: TrustedContext, id: string, body: unknown) => (await call('webhook_endpoints.update', c, { params: { id }, body })) as Reply<Ep>;
    const rotate = async (c: TrustedContext, id: string, body?: unknown) => (await call('webhook_endpoints.rotate_secret', c, { params: { id }, body })) as Reply<Ep>;
    const retry = async (c: TrustedContext, id: string, delivery_id: string) =>
      (await call('webhook_endpoints.retry_delivery', c, { params: { id, delivery_id } })) as Reply<{ id: string; status: string; attempt_count: number }>;
    const testSend = async (c: TrustedContext, id: string) => ((await call('webhook_endpoints.test', c, { params: { id } })) as Reply<{ id: string }>).body.data.id;
    const arrival = (path: string, deliveryId: string, n = 1) => until(() => received.filter((r) => r.path === path && r.headers['webhook-id'] === deliveryId)[n - 1]);

    it('keeps metadata set on create, returns it on every read and merges it on PATCH ("" removes a key)', async () => {
      const c = fresh();
      const r = (await call('webhook_endpoints.create', c, { body: { url: `${base}/meta`, metadata: { team: 'billing', gone: '' } } })) as Reply<Ep>;
      expect(r.body.data.metadata).toEqual({ team: 'billing' });
      const id = r.body.data.id;
      const got = (await call('webhook_endpoints.get', c, { params: { id } })) as Reply<Ep>;
      expect(got.body.data.metadata).toEqual({ team: 'billing' });
      const listed = (await call('webhook_endpoints.list', c)) as Reply<Ep[]>;
      expect(listed.body.data[0]!.metadata).toEqual({ team: 'billing' });
      const p = await patch(c, id, { metadata: { team: '', owner: 'ana' }, description: 'billing hooks' });
      expect(p).toMatchObject({ ok: true, status: 200, body: { data: { metadata: { owner: 'ana' }, description: 'billing hooks' } } });
      expect(JSON.stringify(p)).not.toContain('whsec_');
      // 50 keys stored, then a PATCH adding one more: 400 naming metadata.
      const fifty = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v']));
      expect((await patch(c, id, { metadata: fifty })).ok).toBe(true);
      expect(await patch(c, id, { metadata: { extra: 'x' } })).toMatchObject({
        ok: false,
        error: { code: 'validation_failed', details: [{ field: '/metadata', issue: 'too_many' }] },
      });
      expect(await patch(c, id, { metadata: { extra: 'x', k0: '' } })).toMatchObject({ ok: true });
      // Another app's key sees no such endpoint.
      expect(await patch(fresh(), id, { description: 'x' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    });

    it('checks a new URL as create does, in every mode', async () => {
      const c = fresh();
      const ep = await create(c, `${base}/patch-url`);
      const id = ep.body.data.id;
      expect(await patch(c, id, { url: `http://user:pw@127.0.0.1:1/x` })).toMatchObject({
        ok: false,
        error: { code: 'validation_failed', details: [{ field: '/url', issue: 'unsafe_url' }] },
      });
      expect(await patch(c, id, { url: `http://internal.example.com/x` })).toMatchObject({ ok: true }); // private URLs are allowed in this block
      config.allowPrivateUrls = false;
      try {
        for (const url of ['http://127.0.0.1/h', 'http://internal.example.com/h', 'http://[::ffff:a9fe:a9fe]/h']) {
          expect(await patch(c, id, { url })).toMatchObject({ ok: false, error: { code: 'validation_failed', details: [{ field: '/url', issue: 'unsafe_url' }] } });
        }
      } finally {
        config.allowPrivateUrls = true;
      }
      const moved = await patch(c, id, { url: `HTTP://127.0.0.1:${new URL(base).port}/patched/../moved` });
      expect(moved.body.data.url).toBe(`${base}/moved`);
      const d = await testSend(c, id);
      await arrival('/moved', d);
      // A deleted endpoint: 404.
      await call('webhook_endpoints.delete', c, { params: { id } });
      expect(await patch(c, id, { description: 'x' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect(await rotate(c, id)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    });

    it('signs with both secrets during a rotation (each verifies), then with the new one alone', async () => {
      const c = fresh();
      const ep = await create(c, `${base}/rotate`);
      const id = ep.body.data.id;
      const old = ep.body.data.secret;
      const r = await rotate(c, id, { expire_current_in_hours: 1 });
      expect(r).toMatchObject({ ok: true, status: 200, body: { data: { id, secret: expect.stringMatching(/^whsec_/) } } });
      const fresh1 = r.body.data.secret!;
      expect(fresh1).not.toBe(old);
      expect(Date.parse(r.body.data.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(3_500_000);
      // The secret is shown once: reads never carry it.
      const read = JSON.stringify([await call('webhook_endpoints.get', c, { params: { id } }), await call('webhook_endpoints.list', c)]);
      expect(read).not.toContain(fresh1);
      expect(JSON.stringify(await svc.sql(`SELECT * FROM webhook_endpoints WHERE id = ?`, [id]))).not.toContain(fresh1.slice(6));
      const got = await arrival('/rotate', await testSend(c, id));
      const sigs = std(got)['webhook-signature'].split(' ');
      expect(sigs).toHaveLength(2);
      expect(sigs.every((x) => x.startsWith('v1,'))).toBe(true);
      const body = JSON.parse(got.raw);
      expect(new Webhook(fresh1).verify(got.raw, std(got))).toEqual(body);
      expect(new Webhook(old).verify(got.raw, std(got))).toEqual(body);
      expect(verify(fresh1, got.headers, got.raw)).toBe(true);
      expect(verify(old, got.headers, got.raw)).toBe(false);
      // The overlap ends (its expiry moved to the past): the new secret alone.
      await svc.sql(`UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = ?`, [id]);
      expect(((await call('webhook_endpoints.get', c, { params: { id } })) as Reply<Ep>).body.data.previous_secret_expires_at).toBeNull();
      const after = await arrival('/rotate', await testSend(c, id));
      expect(std(after)['webhook-signature'].split(' ')).toHaveLength(1);
      expect(new Webhook(fresh1).verify(after.raw, std(after))).toEqual(JSON.parse(after.raw));
      expect(() => new Webhook(old).verify(after.raw, std(after))).toThrow();
      expect(verify(fresh1, after.headers, after.raw)).toBe(true);
    });

    it('rotating with 0 retires the old secret at once; rotating during an overlap drops the secret before the previous one', async () => {
      const c = fresh();
      const ep = await create(c, `${base}/rotate0`);
      const id = ep.body.data.id;
      const s0 = ep.body.data.secret;
      const s1 = (await rotate(c, id)).body.data; // default: 24 h
      expect(Date.parse(s1.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
      const s2 = (await rotate(c, id, { expire_current_in_hours: 2 })).body.data;
      const two = await arrival('/rotate0', await testSend(c, id));
      expect(new Webhook(s2.secret!).verify(two.raw, std(two))).toBeTruthy();
      expect(new Webhook(s1.secret!).verify(two.raw, std(two))).toBeTruthy();
      expect(() => new Webhook(s0).verify(two.raw, std(two))).toThrow();
      const s3 = (await rotate(c, id, { expire_current_in_hours: 0 })).body.data;
      expect(s3.previous_secret_expires_at).toBeNull();
      const one = await arrival('/rotate0', await testSend(c, id));
      expect(std(one)['webhook-signature'].split(' ')).toHaveLength(1);
      expect(new Webhook(s3.secret!).verify(one.raw, std(one))).toBeTruthy();
      expect(() => new Webhook(s2.secret!).verify(one.raw, std(one))).toThrow();
    });

    it('PATCH enabled: false disables, enabled: true re-enables an automatically disabled endpoint, which delivers again', async () => {
      const c = fresh();
      failuresLeft.set('/reenable', 1000);
      const ep = await create(c, `${base}/reenable`);
      const id = ep.body.data.id;
      await svc.sql(`UPDATE webhook_endpoints SET failing_since = now() - interval '3 days 1 minute' WHERE id = ?`, [id]);
      await testSend(c, id);
      await until(async () => ((await call('webhook_endpoints.get', c, { params: { id } })) as Reply<Ep>).body.data.status === 'disabled' || undefined);
      failuresLeft.set('/reenable', 0);
      const on = await patch(c, id, { enabled: true });
      expect(on.body.data).toMatchObject({ status: 'enabled', disabled_reason: null });
      expect(await svc.sql(`SELECT failing_since FROM webhook_endpoints WHERE id = ?`, [id])).toEqual([{ failing_since: null }]);
      const d = await testSend(c, id);
      await arrival('/reenable', d);
      await until(async () => (await deliveries(c, id)).find((x) => x.id === d && x.status === 'delivered'));
      const off = await patch(c, id, { enabled: false });
      expect(off.body.data).toMatchObject({ status: 'disabled', disabled_reason: expect.stringMatching(/through the API/) });
      expect(await call('webhook_endpoints.test', c, { params: { id } })).toMatchObject({ ok: false, error: { code: 'conflict' } });
      // A retry while disabled: 409, nothing queued.
      expect(await retry(c, id, d)).toMatchObject({ ok: false, error: { code: 'conflict' } });
      expect((await patch(c, id, { enabled: true })).body.data.status).toBe('enabled');
    });

    it('a manual retry of a failed delivery sends exactly one more attempt; a repeat while it is queued adds none', async () => {
      const c = fresh();
      failuresLeft.set('/manual', config.retrySchedule.length + 1);
      const ep = await create(c, `${base}/manual`);
      const id = ep.body.data.id;
      const d = await testSend(c, id);
      const failed = await until(async () => (await deliveries(c, id)).find((x) => x.id === d && x.status === 'failed'));
      expect(failed.attempt_count).toBe(config.retrySchedule.length + 1);
      const sentBefore = received.filter((r) => r.path === '/manual').length;
      // With the workers stopped (no timing involved): the first request queues one attempt, the
      // second finds it queued and adds none.
      await stopDelivery();
      const queuedRow = async () =>
        (await svc.sql(`SELECT status, attempt_count, manual_attempt, resume_status, leased_until FROM webhook_deliveries WHERE id = ?`, [d]))[0] as Record<string, unknown>;
      const a = await retry(c, id, d);
      expect(a).toMatchObject({ ok: true, status: 202, body: { data: { id: d, status: 'pending', attempt_count: config.retrySchedule.length + 1 } } });
      const queued = await queuedRow();
      expect(queued).toMatchObject({ status: 'pending', manual_attempt: true, resume_status: 'failed', leased_until: null });
      expect(await retry(c, id, d)).toMatchObject({ ok: true, status: 202 });
      expect(await queuedRow()).toEqual(queued);
      // A worker claims it (leased 300 ms) and dies before sending: a request during the lease adds
      // none either; after the lease the attempt is made once.
      const claimed = await claimDue(svc.orm.em.fork(), { limit: 10, leaseMs: 300, saturated: [], slots: () => 10 });
      expect(claimed.find((x) => x.id === d)).toMatchObject({ manual_attempt: true, resume_status: 'failed' });
      const leased = await queuedRow();
      expect(await retry(c, id, d)).toMatchObject({ ok: true, status: 202 });
      expect(await queuedRow()).toEqual(leased);
      ({ stop: stopDelivery } = await startDelivery(svc.wiring, config));
      const done = await until(async () => (await deliveries(c, id)).find((x) => x.id === d && x.status === 'delivered'));
      expect(done.attempt_count).toBe(config.retrySchedule.length + 3); // the dead claim counted one
      expect(done.attempts.map((x) => x.status_code).slice(-2)).toEqual([500, 200]);
      expect(received.filter((r) => r.path === '/manual').length).toBe(sentBefore + 1);
      // A delivered one: read literally, one more attempt now (a resend), and it stays delivered.
      expect((await retry(c, id, d)).status).toBe(202);
      await arrival('/manual', d, config.retrySchedule.length + 3);
      const again = await until(async () => (await deliveries(c, id)).find((x) => x.id === d && x.attempt_count === config.retrySchedule.length + 4 && x.status === 'delivered'));
      expect(again.attempts).toHaveLength(config.retrySchedule.length + 3);
      // Another endpoint's delivery id, an unknown one, another app's key: 404.
      const other = await create(c, `${base}/manual-other`);
      expect(await retry(c, other.body.data.id, d)).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect(await retry(c, id, randomUUID())).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect(await retry(fresh(), id, d)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    });

    it('a failed manual attempt leaves a failed delivery failed, with no retry schedule', async () => {
      const c = fresh();
      failuresLeft.set('/manual-fails', 1000);
      const ep = await create(c, `${base}/manual-fails`);
      const id = ep.body.data.id;
      const d = await testSend(c, id);
      await until(async () => (await deliveries(c, id)).find((x) => x.id === d && x.status === 'failed'));
      await svc.sql(`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ?`, [id]);
      expect(await retry(c, id, d)).toMatchObject({ ok: true, status: 202 });
      const after = await until(async () => (await deliveries(c, id)).find((x) => x.id === d && x.status === 'failed' && x.attempt_count === config.retrySchedule.length + 2));
      expect(after.next_attempt_at).toBeNull();
      expect(after.attempts).toHaveLength(config.retrySchedule.length + 2);
      failuresLeft.set('/manual-fails', 0);
    });
  });

  it('stores and returns the WHATWG-normalised URL and refuses credentials', async () => {
    const c = ctx('test', { organizationId: randomUUID(), connectedAppId: randomUUID() });
    const port = new URL(base).port;
    const typed = (await call('webhook_endpoints.create', c, { body: { url: `HTTP:/127.0.0.1:${port}/normalised/../n?q` } })) as {
      ok: boolean;
      body: { data: { id: string; url: string } };
    };
    expect(typed.ok).toBe(true);
    expect(typed.body.data.url).toBe(`http://127.0.0.1:${port}/n?q`);
    const got = (await call('webhook_endpoints.get', c, { params: { id: typed.body.data.id } })) as { body: { data: { url: string } } };
    expect(got.body.data.url).toBe(`http://127.0.0.1:${port}/n?q`);
    const stored = await svc.sql(`SELECT url FROM webhook_endpoints WHERE id = ?`, [typed.body.data.id]);
    expect(stored).toEqual([{ url: `http://127.0.0.1:${port}/n?q` }]);
    // The delivery goes to the stored form.
    await call('webhook_endpoints.test', c, { params: { id: typed.body.data.id } });
    await until(() => received.find((r) => r.path === '/n?q'));
    // A backslash ends the authority: the host is `a` and `@10.0.0.1/x` the path, stored as such.
    const backslash = (await call('webhook_endpoints.create', c, { body: { url: 'http://a\\@10.0.0.1/x' } })) as { ok: boolean; body: { data: { url: string } } };
    expect(backslash.body.data.url).toBe('http://a/@10.0.0.1/x');
    for (const url of ['http://a@10.0.0.1/x', `http://user:pw@127.0.0.1:${port}/x`]) {
      const r = (await call('webhook_endpoints.create', c, { body: { url } })) as {
        ok: boolean;
        error: { code: string; details: { field: string; issue: string; message: string }[] };
      };
      expect(r).toMatchObject({
        ok: false,
        error: { code: 'validation_failed', details: [{ field: '/url', issue: 'unsafe_url', message: expect.stringMatching(/credentials/) }] },
      });
    }
  });

  it('keeps live mode on https when private URLs are allowed', async () => {
    const r = (await call('webhook_endpoints.create', ctx('live'), { body: { url: `${base}/live-http` } })) as {
      ok: boolean;
      error: { code: string; details: { issue: string; message: string }[] };
    };
    expect(r).toMatchObject({ ok: false, error: { code: 'validation_failed', details: [{ issue: 'unsafe_url', message: expect.stringMatching(/https in live mode/) }] } });
  });

  describe('with WEBHOOK_ALLOW_PRIVATE_URLS off (the default)', () => {
    // A TCP listener on 127.0.0.1 that counts connections: nothing may reach it.
    let connections = 0;
    const local = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    let port: number;
    // The attacker's names (rebind-*): public on one answer, 127.0.0.1 on the next (TTL 0), alternately.
    const answers = new Map<string, string[]>();
    const rebinding = async (host: string) => {
      if (!host.startsWith('rebind-')) return ['93.184.216.34'];
      const seen = answers.get(host) ?? [];
      answers.set(host, seen);
      const a = seen.length % 2 === 0 ? '93.184.216.34' : '127.0.0.1';
      seen.push(a);
      return [a];
    };
    const refused = (r: unknown, why: RegExp) =>
      expect(r).toMatchObject({ ok: false, error: { code: 'validation_failed', details: [{ field: '/url', issue: 'unsafe_url', message: expect.stringMatching(why) }] } });

    beforeAll(async () => {
      await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
      port = (local.address() as AddressInfo).port;
      // The handlers read the setting on each request; the workers get it when they start.
      config.allowPrivateUrls = false;
      await stopDelivery();
      ({ stop: stopDelivery } = await startDelivery(svc.wiring, config, { resolve: rebinding }));
    });
    afterAll(async () => {
      config.allowPrivateUrls = true;
      await stopDelivery();
      ({ stop: stopDelivery } = await startDelivery(svc.wiring, config));
      await new Promise((r) => local.close(r));
    });

    it.each(['live', 'test'] as const)('refuses a %s connection when the name rebinds to 127.0.0.1 after the check (connect-time lookup)', async (env) => {
      const c = ctx(env, { organizationId: randomUUID(), connectedAppId: randomUUID() });
      const host = `rebind-${env}.example.com`;
      const ep = await create(c, `${env === 'live' ? 'https' : 'http'}://${host}:${port}/hook`); // checked at creation: public
      expect(ep.ok).toBe(true);
      expect(((await call('webhook_endpoints.test', c, { params: { id: ep.body.data.id } })) as { ok: boolean }).ok).toBe(true);
      const [d] = await until(async () => {
        const list = await deliveries(c, ep.body.data.id);
        return list[0]?.status === 'failed' ? list : undefined;
      });
      expect(d!.attempt_count).toBe(config.retrySchedule.length + 1);
      // Every attempt passed the check before the send (public answer) and was refused by the
      // connection's own lookup (127.0.0.1), not by the pre-send URL check.
      expect(d!.attempts).toHaveLength(d!.attempt_count);
      for (const a of d!.attempts) {
        expect(a.status_code).toBeNull();
        expect(a.error).toMatch(/EFORBIDDENADDRESS.*127\.0\.0\.1/);
        expect(a.error).not.toMatch(/refused: URL/);
      }
      expect(answers.get(host)).toEqual(Array.from({ length: 2 * d!.attempt_count }, (_, i) => (i % 2 === 0 ? '93.184.216.34' : '127.0.0.1')));
      expect(connections).toBe(0);
    });

    // Per mode, the endpoint URLs refused at create and why (PORT: the test server's port).
    const refusedUrls = {
      test: [
        ['http://127.0.0.1:PORT/h', /127\.0\.0\.1: loopback/],
        ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254: linkLocal/],
        ['http://2130706433:PORT/h', /loopback/],
        ['http://0x7f.1:PORT/h', /loopback/],
        ['http://[::1]:PORT/h', /loopback/],
        ['http://[::a9fe:a9fe]/h', /ipv4Compatible linkLocal/],
        ['http://[::ffff:a9fe:a9fe]/h', /ipv4Mapped linkLocal/],
        ['http://[64:ff9b::a9fe:a9fe]/h', /rfc6052 linkLocal/],
        ['http://[2002:a9fe:a9fe::]/h', /6to4 linkLocal/],
        ['http://[2001::1]/h', /teredo/],
        ['http:/10.0.0.8/h', /private/],
        ['http://internal.example.com/h', /10\.1\.2\.3: private/],
      ],
      live: [
        // each range plainly, then its ipv4Compatible spelling
        ['http://example.com/h', /https/],
        ['https://127.0.0.1/h', /loopback/],
        ['https://[::127.0.0.1]/h', /ipv4Compatible loopback/],
        ['https://[::1]/h', /loopback/],
        ['https://[0::7f00:1]/h', /ipv4Compatible loopback/],
        ['https://10.0.0.8/h', /private/],
        ['https://[::10.0.0.1]/h', /ipv4Compatible private/],
        ['https://169.254.169.254/latest/meta-data', /linkLocal/],
        ['https://[::a9fe:a9fe]/h', /ipv4Compatible linkLocal/],
        ['https://internal.example.com/h', /10\.1\.2\.3/],
      ],
    } as const;
    it.each(Object.entries(refusedUrls).flatMap(([env, rows]) => rows.map(([url, why]) => [env as keyof typeof refusedUrls, url, why] as const)))(
      'refuses a %s endpoint at %p',
      async (env, url, why) => {
        refused(await call('webhook_endpoints.create', ctx(env), { body: { url: url.replace('PORT', String(port)) } }), why);
      },
    );

    it('refuses at send time a stored URL that the rule refuses now, without connecting', async () => {
      // A row from before the rule (or a setting since turned off) is checked again before each send.
      const c = ctx('test', { organizationId: randomUUID(), connectedAppId: randomUUID() });
      const ep = await create(c, `http://rebind-stored.example.com:${port}/h`);
      expect(ep.ok).toBe(true);
      await svc.sql(`UPDATE webhook_endpoints SET url = ? WHERE id = ?`, [`http://127.0.0.1:${port}/h`, ep.body.data.id]);
      await call('webhook_endpoints.test', c, { params: { id: ep.body.data.id } });
      const [d] = await until(async () => {
        const list = await deliveries(c, ep.body.data.id);
        return list[0]?.attempts.length ? list : undefined;
      });
      expect(d!.attempts[0]).toMatchObject({
        status_code: null,
        error: expect.stringMatching(/refused: URL resolves to an address that is not public \(127\.0\.0\.1: loopback\)/),
      });
      expect(connections).toBe(0);
    });
  });
});
