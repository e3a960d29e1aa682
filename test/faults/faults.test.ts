import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type NatsConnection } from 'nats';
import { Client } from 'pg';
import pino from 'pino';
import { SERVICE_MANIFEST, eventsStreamName } from '@acct/contracts';
import { CONSUMER_MIGRATIONS, EventConsumer, connectNats, createLogger, createMetrics, ddlMigration, dropDatabase, migrate, openOrm, schemaOf, type Orm } from '@acct/kit';
import { NatsCluster, type OwnNatsServer, adminCli, freePort, startOwnNats, startStack, type Stack } from '@acct/stack';
import { PG_SERVER_URL, uniqueName, uniquePrefix, waitFor } from '@acct/testing';

import { EMAIL_DOMAIN, PAYABLES_KINDS, RECEIVABLES_KINDS, WriteLoad } from './load';

/**
 * Fault injection against the whole system: a steady write load through the gateway while every
 * service and the NATS server are killed with SIGKILL and restarted. Afterwards every write that was
 * acknowledged is in the books exactly once, every event reached the stream and a consumer applied
 * it exactly once, the books balance (A/R = open invoices in receivables, A/P = open bills in
 * payables), and no log line carries a secret or a customer's or vendor's e-mail.
 *
 * Correctness never depends on timing: every wait polls for a condition with a generous deadline.
 */

/** The stream's dedupe window: the long NATS outage below lasts longer than this. */
const DUPLICATE_WINDOW_S = 2;
const LONG_OUTAGE_MS = 4_000;
const WORKERS = 4;
/** After each fault, the load must get this many more writes acknowledged (the system is back). */
const PROGRESS_AFTER_FAULT = 40;
/** ...of which at least this many of each service's writes (receivables' and payables'). */
const PROGRESS_PER_SERVICE = 8;
/** Rounds of kill -9 over every service: more chances to hit a request between commit and reply. */
const SERVICE_ROUNDS = 2;
const PROGRESS_DEADLINE_MS = 200_000;
const CONSUMER = 'faults-projection';
/** The schemas of the services that post and publish (a ledger and an outbox each). */
const POSTING_SCHEMAS = SERVICE_MANIFEST.filter((s) => s.posts).map((s) => schemaOf(s.name));
/** Every outbox row of the run, with its service: (id, service). */
const ALL_OUTBOX = POSTING_SCHEMAS.map((s) => `SELECT id, '${s}' AS service FROM ${s}.outbox`).join(' UNION ALL ');

/**
 * FAULTS_CLUSTER=1 (`npm run test:cluster`): the same load and checks on a 3-node NATS JetStream
 * cluster (the stream in 3 replicas) with 2 processes of every service and 2 gateways behind a
 * round-robin balancer; a fault kills one NATS node, or one process of a service, not all of it.
 */
const CLUSTER = process.env.FAULTS_CLUSTER === '1';
const REPLICAS = CLUSTER ? 2 : 1;
const STARTUP_MS = CLUSTER ? 400_000 : 120_000;

interface Fault {
  what: string;
  downMs: number;
}

describe('faults: kill -9 of every service and of NATS under a steady write load', () => {
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct_faults_'));
  const logDir = path.join(dir, 'logs');
  /** Trust auth accepts any password: a distinctive one lets the log scan look for it. */
  const dbPassword = `faultpw${uniqueName('x').replace(/[^0-9a-z]/gi, '')}`;
  let databaseUrl: string;
  /** The NATS server the faults kill (one node of the cluster in cluster mode). */
  let nats: OwnNatsServer;
  let cluster: NatsCluster | undefined;
  let natsUrl: string;
  let prefix: string;
  let stack: Stack | undefined;
  let keys: { organization_id: string; test_key: string; live_key: string };
  let load: WriteLoad;
  let pg: Client;
  let consumerOrm: Orm | undefined;
  let consumerNc: NatsConnection | undefined;
  let consumer: EventConsumer | undefined;
  let consumerMetrics: ReturnType<typeof createMetrics>;
  const faults: Fault[] = [];
  const figures: Record<string, number | string> = {};
  /** Tests that ran to their last line; fewer than TESTS keeps the logs for a look. */
  let passed = 0;
  const TESTS = 6;

  const sql = async <T = any>(q: string, params: unknown[] = []): Promise<T[]> => (await pg.query(q, params)).rows as T[];

  beforeAll(async () => {
    fs.mkdirSync(logDir, { recursive: true });
    const u = new URL(PG_SERVER_URL);
    u.pathname = `/${uniqueName('acct_faults')}`;
    if (!u.password) u.password = dbPassword;
    databaseUrl = u.toString();
    if (CLUSTER) {
      cluster = await NatsCluster.create(path.join(dir, 'nats'), 3, freePort);
      await cluster.start();
      nats = cluster.nodes[0]!;
      natsUrl = cluster.url;
    } else {
      nats = await startOwnNats(path.join(dir, 'jetstream'), path.join(logDir, 'nats-server.log'), freePort);
      natsUrl = nats.url;
    }
    prefix = uniquePrefix();
    stack = await startStack({
      databaseUrl,
      natsUrl,
      natsPrefix: prefix,
      gatewayPort: 0,
      logs: { dir: logDir },
      replicas: REPLICAS,
      env: {
        LOG_LEVEL: 'info',
        EVENTS_STREAM_REPLICAS: CLUSTER ? '3' : '1',
        EVENTS_DUPLICATE_WINDOW_S: String(DUPLICATE_WINDOW_S),
        RATE_LIMIT_RPS: '100000',
        RATE_LIMIT_BURST: '100000',
      },
    });
    keys = await adminCli(databaseUrl, 'bootstrap', '--json', '--name', 'Faults org');
    pg = new Client({ connectionString: databaseUrl });
    await pg.connect();

    // A consumer of our own, in this process: its schema, its durable, a table it inserts into
    // (no unique constraint there, so an event applied twice shows as two rows).
    consumerOrm = await openOrm({
      url: databaseUrl,
      schema: 'faults_consumer',
      entities: [],
      migrations: [
        ...CONSUMER_MIGRATIONS,
        {
          name: 'Faults_Applied',
          class: ddlMigration('CREATE TABLE applied (event_id uuid NOT NULL, seq bigint NOT NULL, subject text NOT NULL)'),
        },
      ],
      poolMax: 4,
    });
    await migrate(consumerOrm);
    const consumerLog = createLogger(
      'faults-consumer',
      'info',
      pino.destination({
        dest: path.join(logDir, 'faults-consumer.log'),
        sync: true,
      }),
    );
    consumerNc = await connectNats(natsUrl, 'faults-consumer', consumerLog);
    consumerMetrics = createMetrics('faults', false);
    consumer = new EventConsumer({
      nc: consumerNc,
      prefix,
      orm: consumerOrm,
      log: consumerLog,
      name: CONSUMER,
      filterSubject: `${prefix}.events.>`,
      metrics: consumerMetrics,
      retryDelayMs: 200,
      ackWaitMs: 10_000,
      apply: async (em, e) => {
        await em.execute('INSERT INTO applied (event_id, seq, subject) VALUES (?, ?, ?)', [e.id, e.seq, e.subject], 'run');
      },
    });
    // Runs through the faults as well: a NATS restart must not stop it.
    await consumer.start();
    // A cluster is 3 NATS nodes and twice the processes: slower to start on a busy machine.
  }, STARTUP_MS);

  afterAll(async () => {
    figures['duration (s)'] = ((Date.now() - started) / 1000).toFixed(1);
    process.stderr.write(
      `\nFault-injection figures\n${Object.entries(figures)
        .map(([k, v]) => `  ${k.padEnd(44)} ${v}`)
        .join('\n')}\n`,
    );
    await consumer?.stop().catch(() => undefined);
    await consumerNc?.close().catch(() => undefined);
    await consumerOrm?.close(true).catch(() => undefined);
    await pg?.end().catch(() => undefined);
    await stack?.stop().catch(() => undefined);
    await nats?.kill().catch(() => undefined);
    await cluster?.stop().catch(() => undefined);
    await dropDatabase(databaseUrl).catch(() => undefined);
    if (passed < TESTS || process.env.FAULTS_KEEP_LOGS) process.stderr.write(`logs kept in ${logDir}\n`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  /** Resolves once every service answers /readyz 200 (after a restart of NATS, for instance). */
  async function allReady(): Promise<void> {
    await waitFor(
      async () => {
        for (const svc of stack!.services.values()) {
          const ok = await fetch(`http://127.0.0.1:${svc.opsPort}/readyz`).then(
            (r) => r.status === 200,
            () => false,
          );
          if (!ok) return false;
        }
        return stack!.services.size === SERVICE_MANIFEST.length * REPLICAS;
      },
      60_000,
      200,
    );
  }

  /** The load got `n` more writes acknowledged: the system serves again after a fault. */
  async function progress(n = PROGRESS_AFTER_FAULT): Promise<void> {
    const from = load.acked;
    const fromAr = load.ackedOf(RECEIVABLES_KINDS);
    const fromAp = load.ackedOf(PAYABLES_KINDS);
    // Generous: after a gateway crash a retried Idempotency-Key request can wait out the stale
    // in-flight record (120 s, see below) in every worker at once.
    const done = () => load.acked >= from + n && load.ackedOf(RECEIVABLES_KINDS) >= fromAr + PROGRESS_PER_SERVICE && load.ackedOf(PAYABLES_KINDS) >= fromAp + PROGRESS_PER_SERVICE;
    await waitFor(() => Promise.resolve(done()), PROGRESS_DEADLINE_MS, 100).catch(() => {
      throw new Error(
        `the load did not get ${n} more writes (${PROGRESS_PER_SERVICE} of each service) acknowledged within ${PROGRESS_DEADLINE_MS / 1000} s (stuck at ${load.acked}: receivables ${load.ackedOf(RECEIVABLES_KINDS) - fromAr}, payables ${load.ackedOf(PAYABLES_KINDS) - fromAp} more; unexpected: ${JSON.stringify(load.unexpected.slice(0, 3))})`,
      );
    });
  }

  it('runs the write load through kill -9 of each service and of NATS (short and longer than the dedupe window)', async () => {
    load = new WriteLoad(stack!.gatewayUrl, keys.test_key);
    load.start(WORKERS);
    await progress(80);

    // Each service in turn, the gateway last (the manifest's order); on a cluster one of its two
    // processes, alternately.
    for (const [round, def] of Array.from({ length: SERVICE_ROUNDS }, (_, r) => SERVICE_MANIFEST.map((d) => [r, d] as const)).flat()) {
      const target = CLUSTER ? (round % 2 === 0 ? def.name : `${def.name}#1`) : def.name;
      const down = Date.now();
      await stack!.stopService(target, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 500));
      await stack!.startService(target); // throws when the process does not come back ready
      faults.push({ what: `kill -9 ${target}`, downMs: Date.now() - down });
      await progress();
    }

    // NATS: a quick crash and restart (within the dedupe window), then an outage longer than it.
    for (const outageMs of [0, LONG_OUTAGE_MS]) {
      const down = Date.now();
      await nats.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, outageMs));
      await nats.start();
      faults.push({
        what: `kill -9 nats-server${CLUSTER ? ' (1 of 3 nodes)' : ''}, ${outageMs ? `${outageMs / 1000} s (> ${DUPLICATE_WINDOW_S} s window)` : 'immediate restart'}`,
        downMs: Date.now() - down,
      });
      await allReady();
      await progress();
    }

    await load.stop();
    figures['faults injected'] = faults.length;
    faults.forEach((f, i) => (figures[`  ${i + 1}. ${f.what} (down ms)`] = f.downMs));
    figures['writes acknowledged (2xx)'] = load.acked;
    for (const kind of [...RECEIVABLES_KINDS, ...PAYABLES_KINDS]) figures[`  ${kind}`] = load.acks.filter((a) => a.kind === kind).length;
    figures['requests sent (attempts)'] = load.stats.requests;
    figures['  retried after 5xx / network / 409 in_flight'] = `${load.stats.retried5xx} / ${load.stats.retriedNetwork} / ${load.stats.retriedInFlight}`;
    figures['  retried writes answered as replays'] = load.stats.replayedAfterRetry;
    const by = load.stats.byService;
    figures['  writes retried (replays): receivables / payables'] = `${by.receivables.retried} (${by.receivables.replayed}) / ${by.payables.retried} (${by.payables.replayed})`;
    // A request that had reached the gateway when it was killed leaves its Idempotency-Key
    // in_flight; retries get 409 in_flight until the record goes stale (120 s in the gateway).
    figures['  longest retry until a final answer (ms)'] = load.stats.longestRetryMs;

    expect(faults).toHaveLength(SERVICE_ROUNDS * SERVICE_MANIFEST.length + 2);
    expect(load.acked).toBeGreaterThan(80 + faults.length * PROGRESS_AFTER_FAULT);
    expect(load.ackedOf(PAYABLES_KINDS)).toBeGreaterThan(faults.length * PROGRESS_PER_SERVICE);
    // Every request got its expected answer in the end: no 409 for a retried identical request,
    // no 4xx, no request that never converged.
    expect(load.stats.conflictsAfterRetry).toBe(0);
    expect(load.unexpected).toEqual([]);
    // The faults did hit requests in flight (otherwise this run proved little).
    expect(load.stats.retried5xx + load.stats.retriedNetwork).toBeGreaterThan(0);
    expect(by.payables.retried).toBeGreaterThan(0);
    passed++;
  }, 540_000);

  it("publishes every outbox row (receivables' and payables'), and the stream holds each at least once", async () => {
    // The relays republish what the crashes left behind (every OUTBOX_RELAY_INTERVAL_MS).
    const unpublishedSql = POSTING_SCHEMAS.map((s) => `(SELECT count(*)::int FROM ${s}.outbox WHERE published_at IS NULL)`).join(' + ');
    await waitFor(async () => (await sql(`SELECT ${unpublishedSql} AS n`))[0].n === 0, 120_000, 500).catch(() => undefined);
    const perService: Record<string, { rows: number; unpublished: number }> = {};
    for (const schema of POSTING_SCHEMAS) {
      const [{ rows, unpublished }] = await sql(`SELECT count(*)::int AS rows, count(*) FILTER (WHERE published_at IS NULL)::int AS unpublished FROM ${schema}.outbox`);
      perService[schema] = { rows, unpublished };
    }
    figures['outbox rows'] = POSTING_SCHEMAS.map((s) => `${s} ${perService[s]!.rows}`).join(', ');
    // Every posting service published something under the load, and nothing is left behind.
    expect(Object.fromEntries(POSTING_SCHEMAS.map((s) => [s, perService[s]!.unpublished]))).toEqual(Object.fromEntries(POSTING_SCHEMAS.map((s) => [s, 0])));
    for (const schema of POSTING_SCHEMAS) expect([schema, perService[schema]!.rows > 0]).toEqual([schema, true]);

    // Read the whole stream with an ordered consumer: one message id (= outbox id) per message.
    const nc = await connectNats(natsUrl, 'faults-reader', pino({ level: 'silent' }));
    try {
      const stream = eventsStreamName(prefix);
      const total = (await (await nc.jetstreamManager()).streams.info(stream)).state.messages;
      const counts = new Map<string, number>();
      const reader = await nc.jetstream().consumers.get(stream);
      const messages = await reader.consume({ max_messages: 1000 });
      let read = 0;
      for await (const m of messages) {
        const id = m.headers?.get('Nats-Msg-Id') || m.json<{ id: string }>().id;
        counts.set(id, (counts.get(id) ?? 0) + 1);
        if (++read >= total) break;
      }
      await messages.close();
      const outboxIds = new Set((await sql<{ id: string }>(`SELECT id FROM (${ALL_OUTBOX}) o`)).map((r) => r.id));
      const missing = [...outboxIds].filter((id) => !counts.has(id));
      const strangers = [...counts.keys()].filter((id) => !outboxIds.has(id));
      figures['stream messages'] = total;
      figures['  copies beyond the first (at least once)'] = total - counts.size;
      expect({ missing: missing.length, strangers: strangers.length }).toEqual({
        missing: 0,
        strangers: 0,
      });
    } finally {
      await nc.close();
    }
    passed++;
  }, 300_000);

  it('has the consumer apply every outbox event exactly once: none twice, none missing', async () => {
    const [{ n: outboxRows }] = await sql(`SELECT count(*)::int AS n FROM (${ALL_OUTBOX}) o`);
    // Catch up: every outbox id applied (polling; the consumer kept running through the faults).
    await waitFor(
      async () => (await sql(`SELECT count(*)::int AS n FROM (${ALL_OUTBOX}) o WHERE NOT EXISTS (SELECT 1 FROM faults_consumer.applied a WHERE a.event_id = o.id)`))[0].n === 0,
      120_000,
      500,
    ).catch(() => undefined);
    // ...and nothing left in flight: every copy and redelivery handled (acked) as well.
    const jsm = await consumerNc!.jetstreamManager();
    await waitFor(
      async () => {
        const info = await jsm.consumers.info(eventsStreamName(prefix), CONSUMER);
        return info.num_pending === 0 && info.num_ack_pending === 0;
      },
      120_000,
      500,
    ).catch(() => undefined);
    const [c] = await sql(
      `SELECT count(*)::int AS applied, count(DISTINCT event_id)::int AS distinct_ids,
              (SELECT count(*)::int FROM (${ALL_OUTBOX}) o WHERE NOT EXISTS (SELECT 1 FROM faults_consumer.applied a WHERE a.event_id = o.id)) AS missing,
              (SELECT count(*)::int FROM faults_consumer.applied a WHERE NOT EXISTS (SELECT 1 FROM (${ALL_OUTBOX}) o WHERE o.id = a.event_id)) AS strangers
         FROM faults_consumer.applied`,
    );
    // Applied per publishing service (each event once, whichever service's outbox it came from).
    const byService = await sql<{ service: string; n: number }>(
      `SELECT o.service, count(*)::int AS n FROM faults_consumer.applied a JOIN (${ALL_OUTBOX}) o ON o.id = a.event_id GROUP BY 1 ORDER BY 1`,
    );
    const metrics = await consumerMetrics.registry.getSingleMetric('events_consumed_total')!.get();
    const outcome = (o: string) => metrics.values.filter((v) => v.labels.outcome === o).reduce((s, v) => s + v.value, 0);
    figures['events applied by the consumer'] = c.applied;
    figures['  by service'] = byService.map((r) => `${r.service} ${r.n}`).join(', ');
    figures['  copies dropped as duplicates / failed applies'] = `${outcome('duplicate')} / ${outcome('failed')}`;
    expect({
      missing: c.missing,
      twice: c.applied - c.distinct_ids,
      strangers: c.strangers,
    }).toEqual({ missing: 0, twice: 0, strangers: 0 });
    expect(c.applied).toBe(outboxRows);
    passed++;
  }, 300_000);

  it('has every acknowledged write in the database exactly once (by external id), and nothing else', async () => {
    const org = keys.organization_id;
    let lost = 0;
    let doubled = 0;
    const problems: string[] = [];
    const check = (what: string, ext: string, n: number) => {
      if (n === 0) lost++;
      if (n > 1) doubled++;
      if (n !== 1 && problems.length < 20) problems.push(`${what} ${ext}: ${n} rows`);
    };
    const byExt = async (table: string, col: string, exts: string[]) => {
      const rows = await sql<{ ext: string; n: number }>(
        `SELECT ${col} AS ext, count(*)::int AS n FROM ${table.includes('.') ? table : `receivables.${table}`} WHERE organization_id = $1 AND environment = 'test' AND ${col} = ANY($2::text[]) GROUP BY ${col}`,
        [org, exts],
      );
      return new Map(rows.map((r) => [r.ext, r.n]));
    };
    const acks = load.acks;
    const of = <K extends (typeof acks)[number]['kind']>(k: K) => acks.filter((a): a is Extract<(typeof acks)[number], { kind: K }> => a.kind === k);

    const customers = of('customer');
    const cn = await byExt(
      'customers',
      'external_customer_id',
      customers.map((a) => a.ext),
    );
    for (const a of customers) check('customer', a.ext, cn.get(a.ext) ?? 0);

    const invoices = of('invoice');
    const inn = await byExt(
      'invoices',
      'external_invoice_id',
      invoices.map((a) => a.ext),
    );
    for (const a of invoices) check('invoice', a.ext, inn.get(a.ext) ?? 0);

    // Payments, from POST /payments and from payment.received events.
    const payments = of('payment');
    const events = of('event');
    const pn = await byExt('payments', 'external_payment_id', [...payments.map((a) => a.ext), ...events.map((a) => a.paymentExt)]);
    for (const a of payments) check('payment', a.ext, pn.get(a.ext) ?? 0);
    for (const a of events) check('event payment', a.paymentExt, pn.get(a.paymentExt) ?? 0);
    const en = await byExt(
      'inbound_events',
      'external_event_id',
      events.map((a) => a.ext),
    );
    for (const a of events) check('event', a.ext, en.get(a.ext) ?? 0);

    // One journal entry per posted invoice and per payment: a doubled posting shows here.
    const entries = await sql<{
      source_type: string;
      source_id: string;
      n: number;
    }>(`SELECT source_type, source_id::text, count(*)::int AS n FROM receivables.journal_entries WHERE organization_id = $1 AND environment = 'test' GROUP BY 1, 2`, [org]);
    const entryCount = new Map(entries.map((e) => [`${e.source_type}:${e.source_id}`, e.n]));
    const postedIds = new Set(of('post').map((a) => a.id));
    for (const id of postedIds) check('invoice posting', id, entryCount.get(`invoice:${id}`) ?? 0);
    const paymentIds = (await sql<{ id: string }>(`SELECT id::text FROM receivables.payments WHERE organization_id = $1`, [org])).map((r) => r.id);
    for (const id of paymentIds) check('payment posting', id, entryCount.get(`payment:${id}`) ?? 0);

    // Each invoice: status and amount paid agree with the acknowledged writes exactly.
    const paidByInvoice = new Map<string, number>();
    for (const a of [...payments, ...events]) paidByInvoice.set(a.invoiceId, (paidByInvoice.get(a.invoiceId) ?? 0) + a.amountCents);
    const dbInvoices = await sql<{
      id: string;
      status: string;
      total: string;
      paid: string;
    }>(`SELECT id::text, status, total_cents AS total, paid_cents AS paid FROM receivables.invoices WHERE organization_id = $1 AND environment = 'test'`, [org]);
    const dbInv = new Map(dbInvoices.map((r) => [r.id, r]));
    for (const a of invoices) {
      const row = dbInv.get(a.id);
      if (!row) continue; // counted as lost above
      const paid = paidByInvoice.get(a.id) ?? 0;
      const expectedStatus = !postedIds.has(a.id) ? 'draft' : paid === 0 ? 'open' : paid === a.totalCents ? 'paid' : 'partially_paid';
      const got = {
        status: row.status,
        total: Number(row.total),
        paid: Number(row.paid),
      };
      const want = { status: expectedStatus, total: a.totalCents, paid };
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        if (got.paid > want.paid) doubled++;
        else lost++;
        if (problems.length < 20) problems.push(`invoice ${a.ext}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
      }
    }

    // Nothing the clients were not told about: every request got a final answer, so every row of
    // the organization is an acknowledged write.
    const [totals] = await sql(
      `SELECT (SELECT count(*)::int FROM receivables.customers WHERE organization_id = $1) AS customers,
              (SELECT count(*)::int FROM receivables.invoices WHERE organization_id = $1) AS invoices,
              (SELECT count(*)::int FROM receivables.payments WHERE organization_id = $1) AS payments,
              (SELECT count(*)::int FROM receivables.inbound_events WHERE organization_id = $1) AS events`,
      [org],
    );

    // Payables: vendors, bills and vendor payments by external id.
    const vendors = of('vendor');
    const vn = await byExt(
      'payables.vendors',
      'external_vendor_id',
      vendors.map((a) => a.ext),
    );
    for (const a of vendors) check('vendor', a.ext, vn.get(a.ext) ?? 0);
    const bills = of('bill');
    const bn = await byExt(
      'payables.bills',
      'external_bill_id',
      bills.map((a) => a.ext),
    );
    for (const a of bills) check('bill', a.ext, bn.get(a.ext) ?? 0);
    const vendorPayments = of('vendor_payment');
    const vpn = await byExt(
      'payables.vendor_payments',
      'external_vendor_payment_id',
      vendorPayments.map((a) => a.ext),
    );
    for (const a of vendorPayments) check('vendor payment', a.ext, vpn.get(a.ext) ?? 0);

    // Journal entries of payables: one per posted bill, one more per reversal (it points at the
    // original), one per vendor payment. A doubled posting or reversal shows here.
    const apEntries = await sql<{ source_type: string; source_id: string; originals: number; reversals: number }>(
      `SELECT source_type, source_id::text, count(*) FILTER (WHERE reverses_entry_id IS NULL)::int AS originals, count(*) FILTER (WHERE reverses_entry_id IS NOT NULL)::int AS reversals
         FROM payables.journal_entries WHERE organization_id = $1 AND environment = 'test' GROUP BY 1, 2`,
      [org],
    );
    const apEntry = new Map(apEntries.map((e) => [`${e.source_type}:${e.source_id}`, e]));
    const reversedIds = new Set(of('bill_reversal').map((a) => a.id));
    for (const a of bills) {
      const e = apEntry.get(`bill:${a.id}`);
      check('bill posting', a.ext, e?.originals ?? 0);
      if (reversedIds.has(a.id)) check('bill reversal', a.ext, e?.reversals ?? 0);
      else if (e?.reversals) {
        doubled++;
        if (problems.length < 20) problems.push(`bill ${a.ext}: ${e.reversals} reversal entries, no reversal acknowledged`);
      }
    }
    const vpIds = (await sql<{ id: string }>(`SELECT id::text FROM payables.vendor_payments WHERE organization_id = $1`, [org])).map((r) => r.id);
    for (const id of vpIds) check('vendor payment posting', id, apEntry.get(`vendor_payment:${id}`)?.originals ?? 0);

    // Each bill: status and amount paid agree with the acknowledged writes exactly.
    const paidByBill = new Map<string, number>();
    for (const a of vendorPayments) paidByBill.set(a.billId, (paidByBill.get(a.billId) ?? 0) + a.amountCents);
    const dbBills = new Map(
      (
        await sql<{ id: string; status: string; total: string; paid: string }>(
          `SELECT id::text, status, total_cents AS total, paid_cents AS paid FROM payables.bills WHERE organization_id = $1 AND environment = 'test'`,
          [org],
        )
      ).map((r) => [r.id, r]),
    );
    for (const a of bills) {
      const row = dbBills.get(a.id);
      if (!row) continue; // counted as lost above
      const got = { status: row.status, total: Number(row.total), paid: Number(row.paid) };
      const want = { status: reversedIds.has(a.id) ? 'reversed' : 'posted', total: a.totalCents, paid: paidByBill.get(a.id) ?? 0 };
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        if (got.paid > want.paid) doubled++;
        else lost++;
        if (problems.length < 20) problems.push(`bill ${a.ext}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
      }
    }
    const [apTotals] = await sql(
      `SELECT (SELECT count(*)::int FROM payables.vendors WHERE organization_id = $1) AS vendors,
              (SELECT count(*)::int FROM payables.bills WHERE organization_id = $1) AS bills,
              (SELECT count(*)::int FROM payables.vendor_payments WHERE organization_id = $1) AS vendor_payments`,
      [org],
    );

    figures['writes lost'] = lost;
    figures['writes doubled'] = doubled;
    expect(problems).toEqual([]);
    expect({ lost, doubled }).toEqual({ lost: 0, doubled: 0 });
    expect(totals).toEqual({
      customers: customers.length,
      invoices: invoices.length,
      payments: payments.length + events.length,
      events: events.length,
    });
    expect(apTotals).toEqual({ vendors: vendors.length, bills: bills.length, vendor_payments: vendorPayments.length });
    passed++;
  }, 120_000);

  it('keeps the books: every entry balances, debits = credits, A/R = open invoices, A/P = open bills', async () => {
    const org = keys.organization_id;
    // Each posting service keeps its own ledger: every entry of each balances.
    for (const schema of POSTING_SCHEMAS) {
      const unbalanced = await sql(
        `SELECT entry_id FROM ${schema}.journal_lines GROUP BY entry_id
          HAVING sum(CASE side WHEN 'debit' THEN amount_cents ELSE -amount_cents END) <> 0`,
      );
      expect([schema, unbalanced]).toEqual([schema, []]);
    }
    /** Debits, credits, and the debit balance of `account` in one service's ledger (this org, test). */
    const totals = async (schema: string, account: string) =>
      (
        await sql(
          `SELECT coalesce(sum(amount_cents) FILTER (WHERE side = 'debit'), 0)::bigint AS debits,
                  coalesce(sum(amount_cents) FILTER (WHERE side = 'credit'), 0)::bigint AS credits,
                  coalesce(sum(CASE WHEN account_code = $2 THEN CASE side WHEN 'debit' THEN amount_cents ELSE -amount_cents END END), 0)::bigint AS balance
             FROM ${schema}.journal_lines l JOIN ${schema}.journal_entries e ON e.id = l.entry_id
            WHERE e.organization_id = $1 AND e.environment = 'test'`,
          [org, account],
        )
      )[0];
    const t = await totals('receivables', '1100');
    const [open] = await sql(
      `SELECT coalesce(sum(total_cents - paid_cents), 0)::bigint AS open FROM receivables.invoices
        WHERE organization_id = $1 AND environment = 'test' AND status IN ('open', 'partially_paid')`,
      [org],
    );
    figures['receivables journal debits = credits (cents)'] = `${t.debits} = ${t.credits}`;
    figures['A/R (1100) = open invoice balances (cents)'] = `${t.balance} = ${open.open}`;
    expect(Number(t.debits)).toBeGreaterThan(0);
    expect(t.debits).toBe(t.credits);
    expect(t.balance).toBe(open.open);

    // Payables: A/P (2000, a liability: credit balance) = what posted bills still owe. Bills are
    // draft, posted or reversed; a paid bill is posted with paid = total (open balance 0), and a
    // reversed bill owes nothing (its reversal entry takes its credit off A/P).
    const p = await totals('payables', '2000');
    const [openBills] = await sql(
      `SELECT coalesce(sum(total_cents - paid_cents), 0)::bigint AS open, count(*)::int AS n FROM payables.bills
        WHERE organization_id = $1 AND environment = 'test' AND status = 'posted'`,
      [org],
    );
    const ap = -Number(p.balance);
    figures['payables journal debits = credits (cents)'] = `${p.debits} = ${p.credits}`;
    figures['A/P (2000) = open bill balances (cents)'] = `${ap} = ${openBills.open}`;
    expect(Number(p.debits)).toBeGreaterThan(0);
    expect(p.debits).toBe(p.credits);
    expect(ap).toBe(Number(openBills.open));
    expect(ap).toBeGreaterThan(0);
    passed++;
  }, 60_000);

  it("leaks no API key, Authorization value, password or customer's or vendor's e-mail into any log line", () => {
    const files = fs.readdirSync(logDir).filter((f) => f.endsWith('.log'));
    // Every service's log of the run, its migrations', NATS's and our consumer's.
    for (const def of SERVICE_MANIFEST) expect(files).toContain(`${def.name}.log`);
    const secrets = [keys.test_key, keys.live_key, new URL(databaseUrl).password].filter(Boolean);
    const emails = new Set(load.acks.flatMap((a) => (a.kind === 'customer' || a.kind === 'vendor' ? [a.email] : [])));
    const patterns: Array<[string, RegExp]> = [
      ['api key', /svc_(test|live)_[0-9A-Za-z]{32,}/],
      ['authorization value', /bearer\s+[^\s"\\]{8,}/i],
      ['password field', /"password"\s*:\s*"(?!\[redacted\])[^"]+"/i],
      ['e-mail', new RegExp(`@${EMAIL_DOMAIN.replace(/\./g, '\\.')}`, 'i')],
    ];
    let lines = 0;
    const leaks: string[] = [];
    for (const f of files) {
      for (const line of fs.readFileSync(path.join(logDir, f), 'utf8').split('\n')) {
        if (!line) continue;
        lines++;
        const hit =
          secrets.find((s) => line.includes(s)) !== undefined
            ? 'secret value'
            : (patterns.find(([, re]) => re.test(line))?.[0] ?? ([...emails].some((e) => line.includes(e)) ? 'e-mail' : undefined));
        if (hit && leaks.length < 10) leaks.push(`${f}: ${hit}: ${line.slice(0, 300)}`);
      }
    }
    figures['log files / lines scanned'] = `${files.length} / ${lines}`;
    expect(lines).toBeGreaterThan(0);
    expect(leaks).toEqual([]);
    passed++;
  }, 60_000);
});
