import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ctx as newCtx, waitFor } from '@acct/testing';
import type { WebhookConfig } from './config';
import { parseSchedule } from './domain/schedule';
import { type Replica, publishInvoicePosted, startReplicas, stopReplicas } from './testing/replicas';

/**
 * Two dispatcher replicas on one database and one JetStream consumer, sending to a slow receiver
 * that counts, per delivery and per (endpoint, event), the requests it is serving at once: no
 * delivery is ever in flight twice, and each event reaches each subscribed endpoint with one 2xx.
 */
describe('webhook dispatcher: two replicas never send one delivery twice at once', () => {
  const EVENTS = 60;
  const HOOKS = ['/a', '/b', '/c'];
  const config: WebhookConfig = {
    secretKey: Buffer.alloc(32, 9),
    retrySchedule: parseSchedule('50ms,50ms,50ms'),
    timeoutMs: 5000,
    // Small per-process limits: one replica alone can never have more than 4 sends in flight.
    concurrency: 4,
    endpointConcurrency: 2,
    pollIntervalMs: 10,
    disableAfterMs: 3 * 86_400_000,
    leaseMarginMs: 1000,
    allowPrivateUrls: true, // the receiver is on 127.0.0.1
  };
  let receiver: http.Server;
  let base: string;
  const replicas: Replica[] = [];

  // The receiver's own records.
  const inflightByDelivery = new Map<string, number>();
  const inflightByEvent = new Map<string, number>();
  const overlaps: string[] = [];
  const okByEvent = new Map<string, number>();
  const seenDeliveries = new Set<string>();
  let inflight = 0;
  let maxInflight = 0;
  // Holds every request until both replicas have their sends in flight at once (more than one
  // process's `concurrency`), so the two claim loops overlap from the start.
  let openGate!: () => void;
  const gate = new Promise<void>((r) => (openGate = r));

  const bump = (m: Map<string, number>, k: string, by: number) => {
    const n = (m.get(k) ?? 0) + by;
    if (n === 0) m.delete(k);
    else m.set(k, n);
    return n;
  };

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const body = JSON.parse(raw) as { id: string; data: { n: number } };
        const delivery = String(req.headers['service-event-id']);
        const event = `${req.url} #${body.data.n}`;
        if (bump(inflightByDelivery, delivery, 1) > 1) overlaps.push(`delivery ${delivery}`);
        if (bump(inflightByEvent, event, 1) > 1) overlaps.push(`event ${event}`);
        maxInflight = Math.max(maxInflight, ++inflight);
        if (inflight >= 2 * config.concurrency) openGate();
        // Every fifth event fails its first attempt: its delivery is claimed again, by either replica.
        const fail = body.data.n % 5 === 0 && !seenDeliveries.has(delivery);
        seenDeliveries.add(delivery);
        res.once('close', () => {
          inflight--;
          bump(inflightByDelivery, delivery, -1);
          bump(inflightByEvent, event, -1);
        });
        void gate
          .then(() => new Promise((r) => setTimeout(r, 5 + (body.data.n % 7) * 5)))
          .then(() => {
            if (res.destroyed) return;
            if (!fail) bump(okByEvent, event, 1);
            res.writeHead(fail ? 500 : 200);
            res.end(fail ? 'not yet' : 'ok');
          });
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    await startReplicas(config, replicas);
  });

  afterAll(async () => {
    openGate?.();
    await stopReplicas(replicas);
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
  });

  it('every event reaches each subscribed endpoint with exactly one 2xx, never two sends of one delivery at once', async () => {
    const { svc } = replicas[0]!;
    const ctx = newCtx({ environment: 'test' });
    const create = async (path: string, eventTypes: string[]) => {
      const r = (await svc.call('webhook_endpoints.create', ctx, { body: { url: `${base}${path}`, event_types: eventTypes } })) as {
        ok: boolean;
        body: { data: { id: string } };
      };
      expect(r.ok).toBe(true);
      return r.body.data.id;
    };
    const endpoints = await Promise.all(HOOKS.map((p) => create(p, ['invoice.posted'])));
    await create('/unsubscribed', ['payment.posted']);

    for (let n = 0; n < EVENTS; n++) await publishInvoicePosted(svc, ctx, { n });

    await waitFor(
      async () => {
        const [r] = await svc.sql(`SELECT count(*) FILTER (WHERE status = 'delivered') AS delivered FROM webhook_deliveries`);
        return Number(r?.delivered) === EVENTS * HOOKS.length;
      },
      120_000,
      100,
    );

    // Both replicas sent at once: one process alone never has more than `concurrency` in flight.
    expect(maxInflight).toBeGreaterThan(config.concurrency);
    expect(overlaps).toEqual([]);
    const expected = new Map(HOOKS.flatMap((p) => Array.from({ length: EVENTS }, (_, n) => [`${p} #${n}`, 1] as const)));
    expect(new Map([...okByEvent].sort())).toEqual(new Map([...expected].sort()));

    const rows: { endpoint_id: string; status: string; attempts: string; first_fails: boolean }[] = await svc.sql(
      `SELECT d.endpoint_id, d.status, count(a.id) AS attempts, ((d.body::jsonb -> 'data' ->> 'n')::int % 5 = 0) AS first_fails
         FROM webhook_deliveries d LEFT JOIN webhook_attempts a ON a.delivery_id = d.id GROUP BY d.id`,
    );
    expect(rows).toHaveLength(EVENTS * HOOKS.length);
    expect(new Set(rows.map((r) => r.endpoint_id))).toEqual(new Set(endpoints));
    for (const r of rows) {
      expect(r.status).toBe('delivered');
      // One attempt, or a failed first one and its retry: a claim taken twice would record more.
      expect(Number(r.attempts)).toBe(r.first_fails ? 2 : 1);
    }
  }, 180_000);
});
