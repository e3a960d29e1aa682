import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONSUMERS, type TrustedContext } from '@acct/contracts';
import { type TestService, ctx as newCtx, waitFor } from '@acct/testing';
import type { WebhookConfig } from './config';
import { parseSchedule } from './domain/schedule';
import { type Replica, publishInvoicePosted, startReplicas, stopReplicas } from './testing/replicas';

/**
 * Issue #26: each replica keeps the endpoints' subscriptions in memory and acks an event nobody
 * subscribes to without touching Postgres beyond one version read per batch. Two replicas on one
 * database and one JetStream consumer, their caches warm: a change made through either one is
 * honoured by both from the next event on.
 */
describe('webhook dispatcher: cached subscriptions across two replicas', () => {
  const config: WebhookConfig = {
    secretKey: Buffer.alloc(32, 5),
    retrySchedule: parseSchedule('50ms'),
    timeoutMs: 5000,
    concurrency: 8,
    endpointConcurrency: 4,
    pollIntervalMs: 20,
    disableAfterMs: 3 * 86_400_000,
    allowPrivateUrls: true, // the receiver is on 127.0.0.1
  };
  let receiver: http.Server;
  let base: string;
  const received: string[] = [];
  const replicas: Replica[] = [];
  const quiet = newCtx({ environment: 'test' }); // no endpoint ever
  const app = newCtx({ environment: 'test' }); // an endpoint for payment.posted, then one for invoice.posted
  const other = newCtx({ environment: 'test' }); // an endpoint for invoice.posted throughout
  const first = () => replicas[0]!.svc;

  type Outcomes = Record<string, number>;
  const outcomes = async (svc: TestService): Promise<Outcomes> => {
    const out: Outcomes = {};
    for (const v of (await svc.metrics.registry.getSingleMetric('events_consumed_total')!.get()).values)
      if (v.labels.consumer === CONSUMERS.webhookOutbound) out[String(v.labels.outcome)] = v.value;
    return out;
  };
  const total = async () => (await Promise.all(replicas.map((r) => outcomes(r.svc)))).flatMap((o) => Object.values(o)).reduce((a, b) => a + b, 0);

  /** Publishes one invoice.posted event of the context's app and waits until a replica has handled it. */
  const publishHandled = async (c: TrustedContext): Promise<string> => {
    const before = await total();
    const id = await publishInvoicePosted(first(), c, {});
    await waitFor(async () => (await total()) === before + 1, 10_000, 10);
    return id;
  };

  /**
   * Publishes events one at a time until each replica has handled at least one of them, and checks
   * that every one of them had `outcome` (on whichever replica took it). Returns their ids.
   */
  const publishUntilBoth = async (c: TrustedContext, outcome: 'applied' | 'skipped'): Promise<string[]> => {
    const start = await Promise.all(replicas.map((r) => outcomes(r.svc)));
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      ids.push(await publishHandled(c));
      const now = await Promise.all(replicas.map((r) => outcomes(r.svc)));
      const grew = now.map((o, k) => (o[outcome] ?? 0) - (start[k]![outcome] ?? 0));
      if (grew.reduce((a, b) => a + b, 0) !== ids.length) throw new Error(`an event was not ${outcome}: ${JSON.stringify({ start, now })}`);
      if (grew.every((n) => n > 0)) return ids;
    }
    throw new Error(`200 events and not every replica handled one`);
  };

  const count = async (q: string, params: unknown[] = []) => Number((await first().sql(q, params))[0]!.n);
  const create = async (c: TrustedContext, path: string, eventTypes: string[]) =>
    (await first().ok('webhook_endpoints.create', c, { body: { url: `${base}${path}`, event_types: eventTypes } })) as { id: string };
  const version = async () => String((await first().sql(`SELECT version FROM webhook_subscriptions_version`))[0]!.version);

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(req.url ?? '/');
        res.writeHead(200);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    await startReplicas(config, replicas);
    await create(other, '/other', ['invoice.posted']);
    await create(app, '/app-payments', ['payment.posted']);
  });

  afterAll(async () => {
    await stopReplicas(replicas);
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
  });

  it('skips the events of an app with no endpoint subscribed to their type on both replicas: no claim, no delivery', async () => {
    const claimed = await count(`SELECT count(*) AS n FROM consumed_events`);
    const ids = [...(await publishUntilBoth(quiet, 'skipped')), ...(await publishUntilBoth(app, 'skipped'))];
    expect(await count(`SELECT count(*) AS n FROM consumed_events`)).toBe(claimed);
    expect(await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE event_id = ANY(?::uuid[])`, [`{${ids.join(',')}}`])).toBe(0);
    // An app with a subscribed endpoint still gets its events, claimed and delivered.
    const delivered = await publishUntilBoth(other, 'applied');
    await waitFor(async () => received.filter((p) => p === '/other').length === delivered.length);
    expect(await count(`SELECT count(*) AS n FROM consumed_events WHERE event_id = ANY(?::uuid[])`, [`{${delivered.join(',')}}`])).toBe(delivered.length);
  }, 60_000);

  it('honours an endpoint created through either replica on both, from the next event on; disabling or deleting it stops its deliveries on both', async () => {
    // Both caches are warm and say nobody wants the app's invoice.posted (the test above).
    const ep = await create(app, '/app', ['invoice.posted']);
    const after = await publishUntilBoth(app, 'applied');
    await waitFor(async () => received.filter((p) => p === '/app').length === after.length);
    expect(await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?`, [ep.id])).toBe(after.length);

    await first().ok('webhook_endpoints.update', app, { params: { id: ep.id }, body: { enabled: false } });
    const whileDisabled = await publishUntilBoth(app, 'skipped');
    await first().ok('webhook_endpoints.update', app, { params: { id: ep.id }, body: { enabled: true } });
    const reenabled = await publishUntilBoth(app, 'applied');
    await first().ok('webhook_endpoints.update', app, { params: { id: ep.id }, body: { event_types: ['payment.posted'] } });
    const unsubscribed = await publishUntilBoth(app, 'skipped');
    await first().ok('webhook_endpoints.update', app, { params: { id: ep.id }, body: { event_types: ['invoice.posted'] } });
    await first().ok('webhook_endpoints.delete', app, { params: { id: ep.id } });
    const afterDelete = await publishUntilBoth(app, 'skipped');

    await waitFor(async () => received.filter((p) => p === '/app').length === after.length + reenabled.length);
    const rows = await first().sql(`SELECT event_id FROM webhook_deliveries WHERE endpoint_id = ?`, [ep.id]);
    expect(rows.map((r) => String(r.event_id)).sort()).toEqual([...after, ...reenabled].sort());
    expect(whileDisabled.length + unsubscribed.length + afterDelete.length).toBeGreaterThanOrEqual(6);
  }, 120_000);

  it('bumps the version on every change to what an endpoint subscribes to, whatever makes it, and on nothing else', async () => {
    const ep = await create(app, '/app-v', ['invoice.posted']);
    const v0 = await version();
    // What every attempt writes (failing_since) and a rotation do not touch subscriptions.
    await first().sql(`UPDATE webhook_endpoints SET failing_since = now() WHERE id = ?`, [ep.id]);
    await first().ok('webhook_endpoints.rotate_secret', app, { params: { id: ep.id } });
    await first().ok('webhook_endpoints.update', app, { params: { id: ep.id }, body: { description: 'same subscriptions' } });
    expect(await version()).toBe(v0);
    // The 3-day rule disables by SQL of its own (disableEndpoint), in the attempt's transaction.
    await first().sql(`UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'failing' WHERE id = ?`, [ep.id]);
    const v1 = await version();
    expect(BigInt(v1)).toBeGreaterThan(BigInt(v0));
    await publishUntilBoth(app, 'skipped');
  }, 60_000);
});
