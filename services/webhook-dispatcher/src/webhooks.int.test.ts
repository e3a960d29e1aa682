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
    svc.call(op, c, { params: req.params ?? {}, query: req.query ?? { limit: 25, offset: 0 }, body: req.body });
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
        body: { data: { id: string; status: string; attempt_count: number; attempts: { status_code: number | null; error: string | null; response_body: string | null }[] }[] };
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
    await create(otherApp, `${base}/other-app`);
    // A live endpoint cannot be http://127.0.0.1; its table row stands in for one.
    await svc.sql(
      `INSERT INTO webhook_endpoints (id, organization_id, connected_app_id, environment, url, event_types, status, secret_encrypted, created_at) SELECT ?, organization_id, connected_app_id, 'live', ?, event_types, status, secret_encrypted, now() FROM webhook_endpoints WHERE url = ?`,
      [randomUUID(), `${base}/other-env`, `${base}/mine`],
    );
    await publish(mine, 'invoice.posted', { invoice_id: randomUUID() });
    await until(() => received.find((r) => r.path === '/mine'));
    await new Promise((r) => setTimeout(r, 500));
    expect(received.filter((r) => r.path === '/other-app' || r.path === '/other-env')).toEqual([]);
    expect(otherEnv.environment).toBe('live');
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
