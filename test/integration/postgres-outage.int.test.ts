import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { TrustedContext } from '@acct/contracts';
import { CONSUMER_MIGRATIONS, EventConsumer, createMetrics, ddlMigration, encodeJson, ensureDatabase, migrate, openOrm } from '@acct/kit';
import { OwnPostgres, freePort } from '@acct/stack';
import { type TestService, ctx, firstRow, payablesCalls, serviceDefinition, startServiceForTest, waitFor } from '@acct/testing';

/**
 * A Postgres outage through the kit's RPC layer (the payables service as every service runs it:
 * RpcServer, MikroORM, the outbox), against a Postgres of this test alone (never the machine's):
 * stopped mid-traffic in each way Postgres goes away, every reply is a success or
 * service_unavailable (the gateway's 503 + Retry-After), never internal_error (500); after the
 * restart writes succeed again and the books hold exactly the acknowledged payments, each whole.
 */
describe('a Postgres outage answers service_unavailable, never internal_error', () => {
  let dir: string;
  let pg: OwnPostgres;
  let svc: TestService;
  /** What the service logged at warn and above. */
  const logged: { level: number; msg: string; err?: { type?: string; message?: string; code?: string } }[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
  const { vendor, bill, pay } = payablesCalls(() => svc);

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-pg-outage-'));
    fs.chmodSync(dir, 0o755); // as root, Postgres runs as the postgres user, which must enter its data dir
    pg = await OwnPostgres.create(path.join(dir, 'data'), path.join(dir, 'postgres.log'), freePort);
    const url = pg.url('acct_outage');
    await ensureDatabase(url);
    svc = await startServiceForTest(serviceDefinition('payables'), { db: { url, drop: () => Promise.resolve() }, poolMax: 4, log });
  }, 120_000);

  afterAll(async () => {
    // pg and svc are unset when beforeAll failed: its error is the one to see.
    if (pg && !pg.running) await pg.start().catch(() => undefined);
    await svc?.stop().catch(() => undefined);
    await pg?.stop('fast');
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** Sends 1-cent vendor payments on one bill from `workers` loops until stopped; every reply's outcome is kept. */
  function traffic(c: TrustedContext, vendorId: string, billId: string, workers = 8) {
    const outcomes = new Map<string, number>();
    const acked: string[] = [];
    let stopped = false;
    const loops = Array.from({ length: workers }, async () => {
      while (!stopped) {
        const external = randomUUID();
        const r = await pay(c, vendorId, [{ bill_id: billId, amount_cents: 1 }], { external_vendor_payment_id: external });
        const o = r.ok ? 'ok' : r.error.code;
        outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
        if (r.ok) acked.push(external);
        else await new Promise((res) => setTimeout(res, 20));
      }
    });
    return {
      outcomes,
      acked,
      count: (o: string) => outcomes.get(o) ?? 0,
      async stop() {
        stopped = true;
        await Promise.all(loops);
      },
    };
  }

  /** The payables books of one organization: nothing but the acknowledged payments, each whole. */
  async function expectConsistentBooks(c: TrustedContext, billId: string, acked: string[]): Promise<void> {
    const sql = (q: string, p: unknown[] = []) => svc.sql(q, p);
    const payments = await sql(`SELECT external_vendor_payment_id AS ext, status, journal_entry_id FROM vendor_payments WHERE organization_id = ?`, [c.organizationId]);
    // Every acknowledged payment is there once; a payment whose reply was lost may be there too,
    // but then whole (posted, with its entry), never half-written.
    const exts = payments.map((p) => p.ext as string);
    expect(new Set(exts).size).toBe(exts.length);
    for (const a of acked) expect(exts).toContain(a);
    for (const p of payments) expect(p).toMatchObject({ status: 'posted', journal_entry_id: expect.any(String) });
    const entries = await sql(
      `SELECT e.id, sum(CASE WHEN l.side = 'debit' THEN l.amount_cents ELSE 0 END)::int AS debits, sum(CASE WHEN l.side = 'credit' THEN l.amount_cents ELSE 0 END)::int AS credits
         FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id WHERE e.organization_id = ? AND e.source_type = 'vendor_payment' GROUP BY e.id`,
      [c.organizationId],
    );
    expect(entries).toHaveLength(payments.length);
    for (const e of entries) expect(e.debits).toBe(e.credits);
    const row = firstRow(await sql(`SELECT paid_cents::int AS paid FROM bills WHERE id = ?`, [billId]));
    expect(row.paid).toBe(payments.length);
    // Each payment's event is in the outbox, committed with it.
    const events = await sql(
      `SELECT count(*)::int AS n FROM outbox WHERE payload->>'type' = 'journal_entry.posted' AND payload->'entry'->>'source_type' = 'vendor_payment' AND payload->>'organization_id' = ?`,
      [c.organizationId],
    );
    expect(firstRow(events).n).toBe(payments.length);
  }

  async function setup(): Promise<{ c: TrustedContext; vendorId: string; billId: string }> {
    const c = ctx();
    const vendorId = await vendor(c);
    const b = await bill(c, vendorId, 1_000_000);
    await svc.ok('bills.post', c, { params: { id: b.id } });
    return { c, vendorId, billId: b.id };
  }

  // Each way Postgres goes away: a crash (SIGQUIT: connections drop mid-query, mid-transaction and
  // mid-commit, "Connection terminated", "Transaction query already complete"), an admin shutdown
  // (57P01 to every session), and a restart that finds the server recovering (57P03) or refusing
  // connections (ECONNREFUSED) while it is down.
  it.each([
    ['an immediate stop (crash)', 'immediate' as const],
    ['a fast stop (57P01 admin_shutdown)', 'fast' as const],
  ])(
    '%s mid-traffic: every reply ok or service_unavailable; after the restart writes succeed and the books hold',
    async (_what, mode) => {
      const { c, vendorId, billId } = await setup();
      const load = traffic(c, vendorId, billId);
      await waitFor(() => Promise.resolve(load.count('ok') >= 20), 30_000, 20);
      await pg.stop(mode);
      // Down: requests keep coming and get refused connections.
      await waitFor(() => Promise.resolve(load.count('service_unavailable') >= 10), 30_000, 20);
      await pg.start();
      const okBefore = load.count('ok');
      await waitFor(() => Promise.resolve(load.count('ok') >= okBefore + 20), 60_000, 20);
      await load.stop();
      // The outage is a warning, not an error: no "handler failed" with a stack to page someone.
      expect(logged.filter((l) => l.level >= 50).map((l) => `${l.msg}: ${l.err?.type} ${l.err?.code} ${l.err?.message}`)).toEqual([]);
      expect(Object.fromEntries(load.outcomes)).toEqual({ ok: expect.any(Number), service_unavailable: expect.any(Number) });
      expect(load.count('internal_error')).toBe(0);
      expect(logged.some((l) => l.msg === 'database unavailable')).toBe(true);
      await expectConsistentBooks(c, billId, load.acked);
    },
    180_000,
  );

  it('an event consumer retries through an outage, parks nothing and applies every event once after the restart', async () => {
    const orm = await openOrm({
      url: pg.url('acct_outage'),
      schema: 'outage_consumer',
      entities: [],
      migrations: [...CONSUMER_MIGRATIONS, { name: 'Outage_Applied', class: ddlMigration('CREATE TABLE applied (event_id uuid PRIMARY KEY)') }],
      poolMax: 2,
      log,
    });
    await migrate(orm);
    const metrics = createMetrics('outage', false);
    const consumer = new EventConsumer({
      nc: svc.nc,
      prefix: svc.prefix,
      orm,
      log,
      metrics,
      name: `outage-${randomUUID().slice(0, 8)}`,
      filterSubject: `${svc.prefix}.events.outage.>`,
      retryDelayMs: 50,
      // Far fewer than the deliveries the outage causes: an outage must not count towards parking.
      maxDeliveries: 2,
      apply: async (em, e) => {
        await em.execute('INSERT INTO applied (event_id) VALUES (?)', [e.id], 'run');
      },
    });
    const counted = async (outcome: string) => (await metrics.eventsConsumed.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
    try {
      await consumer.start();
      await pg.stop('immediate');
      const js = svc.nc.jetstream();
      const ids = Array.from({ length: 5 }, () => randomUUID());
      for (const id of ids) await js.publish(`${svc.prefix}.events.outage.test`, encodeJson({ id, type: 'outage.test' }), { msgID: id });
      // Every event failed several times over (more than maxDeliveries) while Postgres was down.
      await waitFor(async () => (await counted('failed')) >= ids.length * 3, 60_000, 50);
      await pg.start();
      await waitFor(async () => (await counted('applied')) >= ids.length, 60_000, 50);
      const sql = (q: string) => orm.em.fork().getConnection().execute(q);
      expect((await sql('SELECT event_id FROM applied')).map((r) => r.event_id).sort()).toEqual([...ids].sort());
      expect(await sql('SELECT * FROM parked_events')).toEqual([]);
      expect(await counted('parked')).toBe(0);
      expect(logged.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
      expect(logged.some((l) => l.msg === 'applying an event failed; it will be redelivered (database unavailable)')).toBe(true);
    } finally {
      if (!pg.running) await pg.start();
      await consumer.stop();
      await orm.close(true);
    }
  }, 180_000);
});
