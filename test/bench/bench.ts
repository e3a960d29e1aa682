/**
 * `npm run bench`: throughput and latency of the gateway + services path on this machine.
 *
 * Starts the whole stack (tools/stack) on its own database and NATS prefix, bootstraps an
 * organization, drives three scenarios with autocannon and prints one table (requests/s and
 * p50/p95/p99 per route, from every response's latency), then the same as one JSON line
 * (also written to the file BENCH_JSON names, when set):
 *   get-customer     GET  /api/v1/customers/{id}
 *   create-customer  POST /api/v1/customers, a new external_customer_id per request
 *   post-invoice     POST /api/v1/invoices/{id}/post, each of BENCH_INVOICES drafts posted once
 *                    (row lock, journal entry, outbox rows, JetStream publish before the reply);
 *                    a receiver here, subscribed to invoice.posted, gives posting → webhook received
 *   post-invoice-paced  the same at a steady BENCH_LAG_RATE (100) posts/s for BENCH_DURATION_S: the
 *                    posting → reporting and posting → webhook lag at that rate
 *   create-bill      POST /api/v1/bills, a new external_bill_id per request, posted on create
 *                    (Dr expense / Cr A/P, outbox row, JetStream publish)
 *   create-vendor-payment  POST /api/v1/vendor-payments, one allocation to one of BENCH_BILLS
 *                    bills in turn (bill row locks, journal entry, outbox row, publish)
 *   event-api        POST /api/v1/events, a stored-only event (customer.created) with a new id each
 *   stripe-hook      POST /hooks/stripe/{source_id}, the same kind of stored-only event, signed with
 *                    the stripe package (raw route: no key, bytes forwarded, signature checked, dedupe)
 *   reports          BENCH_REPORT_LINES (1,000,000) journal lines seeded straight into the reporting
 *                    projection (report-seed.ts), then each report and ledger read through the
 *                    gateway (GET /reports/*, /accounts, /journal-entries), and EXPLAIN ANALYZE of
 *                    each report query printed
 * Each row also gives the CPU the stack's own processes (gateway and services, not Postgres or NATS)
 * used per request during the scenario, from /proc/<pid>/stat (Linux; empty elsewhere), and a
 * second table gives it per process (each replica apart), for NATS ("nats") and for the Postgres
 * backends of the bench database ("pg"), with how busy the whole machine was ("busy %").
 * Then stops the stack and drops the database, also when something failed.
 *
 * BENCH_CLUSTER=1: the scale-out comparison, in one run: the scenarios on one process of every
 * service with one NATS node of its own, then on BENCH_REPLICAS (2) processes of every service and
 * gateway (behind the stack's round-robin balancer) on a 3-node NATS JetStream cluster of its own
 * (tools/stack's NatsCluster, the events stream in 3 replicas); each setup's tables, then one
 * comparing them. Its default BENCH_SCENARIOS leaves out reports (Postgres reads, no NATS path).
 *
 * Environment: BENCH_CONNECTIONS (20), BENCH_DURATION_S (10), BENCH_WARMUP_S (2, not reported),
 * BENCH_INVOICES (3000), BENCH_BILLS (200), BENCH_SCENARIOS (all of the above, comma-separated), BENCH_REPLICAS (1: processes of each service and gateways; 2 with BENCH_CLUSTER=1),
 * BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres: the server, not the database),
 * NATS_URL (nats://127.0.0.1:4222). Exits 1 if a scenario had a non-2xx reply, an error or a timeout.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Stripe from 'stripe';
import { NatsCluster, adminCli, freePort, startOwnNats, startStack, type Stack } from '@acct/stack';
import { dropDatabase, dropEventsStream } from '@acct/kit';
import { accountId } from '@acct/ledger';
import { explainReports, seedReportingLines } from './report-seed';
import { reportingLag } from './lag';
import { WebhookLag } from './webhook-lag';
import { type CpuSample, type CpuSnapshot, cpuPerRequest, machineTicks, sampleCpu } from './cpu';

/** An integer from the environment (def when unset), at least min. */
export function envInt(name: string, def: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

const CONNECTIONS = envInt('BENCH_CONNECTIONS', 20, 1);
const DURATION_S = envInt('BENCH_DURATION_S', 10, 1);
const WARMUP_S = envInt('BENCH_WARMUP_S', 2, 0);
const INVOICES = envInt('BENCH_INVOICES', 3000, 1);
const LAG_RATE = envInt('BENCH_LAG_RATE', 100, 1);
const BILLS = envInt('BENCH_BILLS', 200, 1);
const REPORT_LINES = envInt('BENCH_REPORT_LINES', 1_000_000, 2);
/** One replica on one NATS node, then BENCH_REPLICAS on a 3-node NATS cluster, in one run. */
const CLUSTER = process.env.BENCH_CLUSTER === '1';
/** Processes of every service and gateways (behind the stack's round-robin balancer). */
const REPLICAS = envInt('BENCH_REPLICAS', CLUSTER ? 2 : 1, 1);
const WRITE_SCENARIOS = 'get-customer,create-customer,post-invoice,post-invoice-paced,event-api,stripe-hook,create-bill,create-vendor-payment';
const SCENARIOS = new Set((process.env.BENCH_SCENARIOS ?? (CLUSTER ? WRITE_SCENARIOS : `${WRITE_SCENARIOS},reports`)).split(',').map((x) => x.trim()));
const PG_SERVER_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

interface Row {
  scenario: string;
  /** Method and route template of the scenario's requests. */
  route: string;
  result: autocannon.Result;
  /** Latency of every measured response, ms (autocannon reports no p95). */
  samples: number[];
  /** CPU ms per request during the scenario by process group (cpu.ts), null when not sampled. */
  cpu: CpuSample | null;
  /** Share of the whole machine's CPU time that was busy during the scenario (null without /proc). */
  busy: number | null;
}

/** Samples the CPU of the running stack's processes, its NATS and its database's backends. */
let sampler: (() => CpuSnapshot) | undefined;

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

let current: autocannon.Instance | undefined;
let interrupted = false;

export async function drive(opts: autocannon.Options): Promise<{ result: autocannon.Result; samples: number[]; cpu: CpuSample | null; busy: number | null }> {
  if (interrupted) throw new Error('interrupted');
  const samples: number[] = [];
  const cpuBefore = sampler?.();
  const ticksBefore = machineTicks();
  const instance = autocannon(opts);
  // 'response' gives (client, statusCode, resBytes, responseTime ms).
  instance.on('response', (...args: unknown[]) => {
    samples.push(Number(args[3]));
  });
  current = instance;
  try {
    const result = await instance;
    const cpuAfter = sampler?.();
    const ticksAfter = machineTicks();
    const busy = ticksBefore && ticksAfter && ticksAfter.total > ticksBefore.total ? (ticksAfter.busy - ticksBefore.busy) / (ticksAfter.total - ticksBefore.total) : null;
    return { result, samples, cpu: cpuBefore && cpuAfter ? cpuPerRequest(cpuBefore, cpuAfter, samples.length) : null, busy };
  } finally {
    current = undefined;
  }
}

interface Summary {
  scenario: string;
  route: string;
  requests: number;
  requests_per_s: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  /** CPU ms of the gateway and service processes per request (null without /proc). */
  cpu_ms_per_request: number | null;
  /** CPU ms per request of each process (`gateway`, `gateway#1`, ...), nats and pg (the bench database's backends). */
  cpu_ms_per_request_by_process: CpuSample | null;
  /** Percent of the machine's CPU time busy during the scenario (every process, others' too). */
  machine_busy_pct: number | null;
  non_2xx: number;
  errors: number;
}

/** Groups of cpu.ts that are not the stack's own processes. */
const NOT_STACK = new Set(['nats', 'pg', 'pg*', 'client']);

function summarize({ scenario, route, result: r, samples, cpu, busy }: Row): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 100) / 100;
  const requests = r['1xx'] + r['2xx'] + r['3xx'] + r['4xx'] + r['5xx'];
  return {
    scenario,
    route,
    requests,
    requests_per_s: round(r.requests.mean),
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    p99_ms: round(percentile(sorted, 99)),
    cpu_ms_per_request: cpu === null ? null : round(sum(Object.entries(cpu).filter(([g]) => !NOT_STACK.has(g)))),
    cpu_ms_per_request_by_process: cpu && Object.fromEntries(Object.entries(cpu).map(([g, ms]) => [g, round(ms)])),
    machine_busy_pct: busy === null ? null : Math.round(busy * 100),
    non_2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

function sum(entries: [string, number][]): number {
  return entries.reduce((a, [, ms]) => a + ms, 0);
}

function errorCount(r: autocannon.Result): number {
  return r.non2xx + r.errors + r.timeouts;
}

/** A Markdown table: the first `leftCols` columns left-aligned, the others right-aligned. */
function markdown(head: string[], body: string[][], leftCols: number): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const left = (i: number) => i < leftCols;
  const line = (cells: string[]) => `| ${cells.map((c, i) => (left(i) ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  return [line(head), `|${widths.map((w, i) => (left(i) ? ':' : '-') + '-'.repeat(w) + (left(i) ? '-' : ':')).join('|')}|`, ...body.map(line)].join('\n');
}

/** Processes in a stable order: each service of the manifest's order with its replicas, then nats and pg. */
function processColumns(rows: Summary[]): string[] {
  const seen = new Set(rows.flatMap((r) => Object.keys(r.cpu_ms_per_request_by_process ?? {})));
  const stack = [...seen].filter((g) => !NOT_STACK.has(g)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return [...stack, ...['nats', 'pg'].filter((g) => seen.has(g))];
}

/** CPU ms per request of every process, one row per scenario. */
function processTable(rows: Summary[]): string {
  const cols = processColumns(rows);
  const body = rows.map((r) => [
    r.scenario,
    ...cols.map((c) => r.cpu_ms_per_request_by_process?.[c]?.toFixed(2) ?? '-'),
    r.machine_busy_pct === null ? '-' : String(r.machine_busy_pct),
  ]);
  return markdown(['scenario', ...cols, 'busy %'], body, 1);
}

function table(rows: Summary[]): string {
  const head = ['route', 'scenario', 'requests/s', 'p50 ms', 'p95 ms', 'p99 ms', 'CPU ms/req', 'non-2xx', 'errors+timeouts', 'requests'];
  const body = rows.map((r) => [
    r.route,
    r.scenario,
    r.requests_per_s.toFixed(1),
    String(r.p50_ms),
    String(r.p95_ms),
    String(r.p99_ms),
    r.cpu_ms_per_request === null ? '-' : String(r.cpu_ms_per_request),
    String(r.non_2xx),
    String(r.errors),
    String(r.requests),
  ]);
  return markdown(head, body, 2);
}

/** Draft invoices made through the API with `parallel` requests in flight; returns their ids. */
export async function createDrafts(url: string, headers: Record<string, string>, customerId: string, runId: string, count: number, parallel: number): Promise<string[]> {
  const ids: string[] = [];
  let made = 0;
  const worker = async () => {
    while (made < count) {
      const n = made++;
      const res = await fetch(`${url}/api/v1/invoices`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          external_invoice_id: `bench-${runId}-inv-${n}`,
          customer_id: customerId,
          invoice_number: `B-${n}`,
          issue_date: '2026-11-01',
          due_date: '2026-12-01',
          line_items: [{ description: 'Bench work', quantity: 1.25, unit_amount_cents: 10_000 + n }],
        }),
      });
      if (res.status !== 201) throw new Error(`creating a draft invoice failed: ${res.status} ${await res.text()}`);
      ids.push(((await res.json()) as { data: { id: string } }).data.id);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return ids;
}

/** One POST that must answer 201; returns the new record's id. */
export async function createOne(url: string, headers: Record<string, string>, body: unknown): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`POST ${url} failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

/** What one pass of the scenarios runs on. */
interface Setup {
  label: string;
  /** Processes of every service and gateways. */
  replicas: number;
  /** 0: the NATS server of NATS_URL (shared); 1: one node of its own; more: a JetStream cluster of its own. */
  natsNodes: number;
}

interface OwnNats {
  url: string;
  pids(): number[];
  stop(): Promise<void>;
}

/** NATS of the setup's own (its CPU then counts as this run's): one JetStream node, or a cluster (tools/stack). */
async function startNats(nodes: number, dir: string): Promise<OwnNats | undefined> {
  if (nodes === 0) return undefined;
  if (nodes === 1) {
    const server = await startOwnNats(path.join(dir, 'nats', 'jetstream'), path.join(dir, 'nats-server.log'), freePort);
    return { url: server.url, pids: () => (server.pid ? [server.pid] : []), stop: () => server.kill('SIGTERM') };
  }
  const cluster = await NatsCluster.create(path.join(dir, 'nats'), nodes, freePort);
  await cluster.start();
  return { url: cluster.url, pids: () => cluster.nodes.flatMap((n) => (n.pid ? [n.pid] : [])), stop: () => cluster.stop() };
}

/** Runs the scenarios on a stack of the setup's shape, on its own database and NATS prefix; stops it after. */
async function runSetup(setup: Setup): Promise<{ rows: Row[]; lag: string }> {
  const id = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const dbName = `acct_bench_${id}`;
  const dbUrlObj = new URL(PG_SERVER_URL);
  dbUrlObj.pathname = `/${dbName}`;
  const databaseUrl = dbUrlObj.toString();
  const natsPrefix = `bench-${id}`.replace(/_/g, '-');
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-bench-'));
  let stack: Stack | undefined;
  let nats: OwnNats | undefined;
  let failed = true;

  try {
    nats = await startNats(setup.natsNodes, logDir);
    const natsUrl = nats?.url ?? NATS_URL;
    process.stdout.write(`bench (${setup.label}): database ${databaseUrl.replace(/\/\/[^@]*@/, '//')}, NATS ${natsUrl} prefix ${natsPrefix}, service logs in ${logDir}\n`);
    stack = await startStack({
      databaseUrl,
      natsUrl,
      natsPrefix,
      gatewayPort: 0,
      logs: { dir: logDir },
      replicas: setup.replicas,
      env: {
        LOG_LEVEL: 'warn',
        RATE_LIMIT_RPS: '1000000',
        RATE_LIMIT_BURST: '1000000',
        RATE_LIMIT_CLIENT_RPS: '1000000',
        RATE_LIMIT_CLIENT_BURST: '1000000',
        ...(setup.natsNodes > 1 ? { EVENTS_STREAM_REPLICAS: String(Math.min(3, setup.natsNodes)) } : {}),
      },
    });
    const running = stack;
    sampler = () => sampleCpu(running, dbName, nats?.pids());

    const boot = await adminCli<{ test_key: string; organization_id: string }>(databaseUrl, 'bootstrap', '--name', 'Bench organization', '--json');
    const key = boot.test_key;

    const url = stack.gatewayUrl;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' };

    const seed = await fetch(`${url}/api/v1/customers`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ external_customer_id: `bench-seed-${id}`, name: 'Bench seed customer', email: 'seed@example.com' }),
    });
    if (seed.status !== 201) throw new Error(`creating the seed customer failed: ${seed.status} ${await seed.text()}`);
    const customerId = ((await seed.json()) as { customer: { id: string } }).customer.id;

    const getUrl = `${url}/api/v1/customers/${customerId}`;
    const check = await fetch(getUrl, { headers });
    if (check.status !== 200) throw new Error(`reading the seed customer failed: ${check.status} ${await check.text()}`);
    await check.arrayBuffer();

    const getOpts: autocannon.Options = { url: getUrl, connections: CONNECTIONS, method: 'GET', headers };
    let n = 0;
    const postOpts: autocannon.Options = {
      url,
      connections: CONNECTIONS,
      method: 'POST',
      headers,
      requests: [
        {
          method: 'POST',
          path: '/api/v1/customers',
          setupRequest: (req) => {
            n += 1;
            const ext = `bench-${id}-${n}`;
            return { ...req, body: JSON.stringify({ external_customer_id: ext, name: `Bench customer ${n}`, email: `c${n}@example.com` }) };
          },
        },
      ],
    };

    if (WARMUP_S > 0) {
      process.stdout.write(`warm-up: ${WARMUP_S} s of each scenario (not reported)\n`);
      await drive({ ...getOpts, duration: WARMUP_S });
      await drive({ ...postOpts, duration: WARMUP_S });
    }

    const rows: Row[] = [];
    process.stdout.write(`running: ${DURATION_S} s per scenario, ${CONNECTIONS} connections\n`);
    if (SCENARIOS.has('get-customer'))
      rows.push({ scenario: 'get-customer', route: 'GET /api/v1/customers/{id}', ...(await drive({ ...getOpts, duration: DURATION_S, title: 'get-customer' })) });
    if (SCENARIOS.has('create-customer'))
      rows.push({ scenario: 'create-customer', route: 'POST /api/v1/customers', ...(await drive({ ...postOpts, duration: DURATION_S, title: 'create-customer' })) });

    // Invoice posting (a ledger write: lock, journal entry, outbox rows, JetStream publish):
    // drafts are made first, then each one is posted exactly once under load.
    let webhookLag = '';
    let pacedLag = '';
    if (SCENARIOS.has('post-invoice')) {
      process.stdout.write(`creating ${INVOICES} draft invoices for the post-invoice scenario\n`);
      const drafts = await createDrafts(url, headers, customerId, id, INVOICES, CONNECTIONS);
      let next = 0;
      const postInvoiceOpts: autocannon.Options = {
        url,
        connections: CONNECTIONS,
        headers,
        amount: drafts.length,
        requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, method: 'POST', path: `/api/v1/invoices/${drafts[next++ % drafts.length]}/post` }) }],
      };
      // Each posting's invoice.posted webhook goes to a receiver in this process: posting → webhook received.
      const hooks = new WebhookLag();
      await hooks.start(url, headers);
      rows.push({ scenario: 'post-invoice', route: 'POST /api/v1/invoices/{id}/post', ...(await drive({ ...postInvoiceOpts, title: 'post-invoice' })) });
      webhookLag = await hooks.report(databaseUrl, boot.organization_id, drafts);
    }

    // The same posting at a steady BENCH_LAG_RATE (below what the machine can take): the lag from
    // posting to reporting and to the webhook receiver at that rate, not behind a saturating burst.
    if (SCENARIOS.has('post-invoice-paced')) {
      const count = LAG_RATE * DURATION_S;
      process.stdout.write(`creating ${count} draft invoices for the post-invoice-paced scenario (${LAG_RATE}/s)\n`);
      const drafts = await createDrafts(url, headers, customerId, `${id}-paced`, count, CONNECTIONS);
      let next = 0;
      const hooks = new WebhookLag();
      await hooks.start(url, headers);
      const opts: autocannon.Options = {
        url,
        connections: CONNECTIONS,
        headers,
        amount: drafts.length,
        overallRate: LAG_RATE,
        requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, method: 'POST', path: `/api/v1/invoices/${drafts[next++ % drafts.length]}/post` }) }],
      };
      rows.push({ scenario: 'post-invoice-paced', route: `POST /api/v1/invoices/{id}/post at ${LAG_RATE}/s`, ...(await drive({ ...opts, title: 'post-invoice-paced' })) });
      const toReporting = await reportingLag(databaseUrl, boot.organization_id, { sourceIds: drafts });
      pacedLag = [`at ${LAG_RATE} posts/s: ${toReporting}`, `at ${LAG_RATE} posts/s: ${await hooks.report(databaseUrl, boot.organization_id, drafts)}`].join('\n');
    }

    // Inbound events, stored only: POST /events (key, JSON, validation) beside the Stripe hook
    // (no key, raw bytes forwarded, signature checked over them, then the same store).
    if (SCENARIOS.has('event-api')) {
      let evNo = 0;
      const opts: autocannon.Options = {
        url,
        connections: CONNECTIONS,
        headers,
        duration: DURATION_S,
        requests: [
          {
            method: 'POST',
            path: '/api/v1/events',
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({ event_type: 'customer.created', external_event_id: `bench-${id}-ev-${++evNo}`, payload: { id: `cus_${evNo}` } }),
            }),
          },
        ],
      };
      rows.push({ scenario: 'event-api', route: 'POST /api/v1/events', ...(await drive({ ...opts, title: 'event-api' })) });
    }
    if (SCENARIOS.has('stripe-hook')) {
      const secret = `whsec_${randomBytes(24).toString('base64url')}`;
      const put = await fetch(`${url}/api/v1/settings/payment-processor`, { method: 'PUT', headers, body: JSON.stringify({ provider: 'stripe', signing_secret: secret }) });
      if (put.status !== 200) throw new Error(`configuring the payment processor failed: ${put.status} ${await put.text()}`);
      const hookPath = ((await put.json()) as { data: { webhook_url: string } }).data.webhook_url;
      const stripe = new Stripe('sk_test_unused');
      let hookNo = 0;
      const opts: autocannon.Options = {
        url,
        connections: CONNECTIONS,
        duration: DURATION_S,
        requests: [
          {
            method: 'POST',
            path: hookPath,
            setupRequest: (req) => {
              const body = JSON.stringify({
                id: `evt_bench_${id}_${++hookNo}`,
                object: 'event',
                type: 'customer.created',
                created: 1_790_000_000,
                data: { object: { id: `cus_${hookNo}` } },
              });
              const signature = stripe.webhooks.generateTestHeaderString({ payload: body, secret });
              return { ...req, headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body };
            },
          },
        ],
      };
      rows.push({ scenario: 'stripe-hook', route: 'POST /hooks/stripe/{source_id}', ...(await drive({ ...opts, title: 'stripe-hook' })) });
    }

    // Reports over a large projection: seeded straight into the reporting schema, read through the gateway.
    if (SCENARIOS.has('reports')) {
      const ids = Object.fromEntries(['1000', '1010', '1100', '1200', '2000', '4000', '5000', '5200'].map((c) => [c, accountId(boot.organization_id, 'test', c)]));
      process.stdout.write(`seeding ${REPORT_LINES} journal lines into the reporting projection\n`);
      const ms = await seedReportingLines(databaseUrl, boot.organization_id, ids, REPORT_LINES);
      process.stdout.write(`seeded in ${(ms / 1000).toFixed(1)} s\n`);
      process.stdout.write(`${await explainReports(databaseUrl, boot.organization_id)}\n`);
      const reads: [string, string][] = [
        ['report-summary', '/api/v1/reports/summary?from=2024-01-01&to=2024-12-31'],
        ['report-ar', '/api/v1/reports/accounts-receivable?as_of=2025-06-30'],
        ['report-ap', '/api/v1/reports/accounts-payable?as_of=2025-06-30'],
        ['report-ar-today', '/api/v1/reports/accounts-receivable'],
        ['report-ap-today', '/api/v1/reports/accounts-payable'],
        ['report-1099', '/api/v1/reports/1099-summary?year=2025'],
        ['report-trial-balance', '/api/v1/reports/trial-balance?as_of=2025-06-30'],
        ['accounts', '/api/v1/accounts'],
        ['journal-entries', '/api/v1/journal-entries?source_type=invoice&from=2025-01-01&to=2025-01-31'],
      ];
      for (const [scenario, p] of reads) {
        const opts: autocannon.Options = { url: `${url}${p}`, connections: Math.min(CONNECTIONS, 4), method: 'GET', headers, duration: DURATION_S, title: scenario };
        rows.push({ scenario, route: `GET ${p.split('?')[0]}`, ...(await drive(opts)) });
      }
    }

    // Payables: bills posted on create, and vendor payments allocated to posted bills in turn.
    if (!SCENARIOS.has('create-bill') && !SCENARIOS.has('create-vendor-payment'))
      return done(rows, [await reportingLag(databaseUrl, boot.organization_id), webhookLag, pacedLag].filter(Boolean).join('\n'));
    const vendorId = await createOne(`${url}/api/v1/vendors`, headers, { external_vendor_id: `bench-vendor-${id}`, display_name: 'Bench vendor', is_1099_eligible: true });
    let billNo = 0;
    const billBody = (cents: number) => ({
      external_bill_id: `bench-${id}-bill-${++billNo}`,
      vendor_id: vendorId,
      bill_number: `VB-${billNo}`,
      issue_date: '2026-11-01',
      due_date: '2026-12-01',
      line_items: [{ description: 'Bench supplies', quantity: 1, unit_amount_cents: cents }],
    });
    if (SCENARIOS.has('create-bill')) {
      const createBillOpts: autocannon.Options = {
        url,
        connections: CONNECTIONS,
        headers,
        duration: DURATION_S,
        requests: [{ method: 'POST', path: '/api/v1/bills', setupRequest: (req) => ({ ...req, body: JSON.stringify(billBody(10_000 + billNo)) }) }],
      };
      rows.push({ scenario: 'create-bill', route: 'POST /api/v1/bills', ...(await drive({ ...createBillOpts, title: 'create-bill' })) });
    }
    if (SCENARIOS.has('create-vendor-payment')) {
      process.stdout.write(`creating ${BILLS} bills for the create-vendor-payment scenario\n`);
      const bills: string[] = [];
      for (let i = 0; i < BILLS; i++) bills.push(await createOne(`${url}/api/v1/bills`, headers, billBody(100_000_000_000)));
      let payNo = 0;
      const payOpts: autocannon.Options = {
        url,
        connections: CONNECTIONS,
        headers,
        duration: DURATION_S,
        requests: [
          {
            method: 'POST',
            path: '/api/v1/vendor-payments',
            setupRequest: (req) => {
              payNo += 1;
              const allocations = [{ bill_id: bills[payNo % bills.length], amount_cents: 100 }];
              return {
                ...req,
                body: JSON.stringify({ external_vendor_payment_id: `bench-${id}-vp-${payNo}`, vendor_id: vendorId, amount_cents: 100, payment_date: '2026-11-15', allocations }),
              };
            },
          },
        ],
      };
      rows.push({ scenario: 'create-vendor-payment', route: 'POST /api/v1/vendor-payments', ...(await drive({ ...payOpts, title: 'create-vendor-payment' })) });
    }
    return done(rows, [await reportingLag(databaseUrl, boot.organization_id), webhookLag, pacedLag].filter(Boolean).join('\n'));
  } finally {
    sampler = undefined;
    try {
      await stack?.stop();
    } finally {
      await dropDatabase(databaseUrl);
      await dropEventsStream(nats?.url ?? NATS_URL, natsPrefix).catch(() => undefined);
      await nats?.stop();
      if (failed) process.stderr.write(`service logs kept in ${logDir}\n`);
      else fs.rmSync(logDir, { recursive: true, force: true });
    }
  }

  function done(rows: Row[], lag: string): { rows: Row[]; lag: string } {
    failed = interrupted || rows.some((r) => errorCount(r.result) > 0);
    return { rows, lag };
  }
}

/** Requests/s, p99 and CPU per request of each setup side by side, one row per scenario. */
function comparison(setups: { setup: Setup; summaries: Summary[] }[]): string {
  const [base, ...others] = setups;
  if (!base) return '';
  const head = ['scenario'];
  for (const { setup } of setups) head.push(`req/s ${setup.replicas}×`);
  for (const { setup } of others) head.push(`× ${setup.replicas}/${base.setup.replicas}`);
  for (const { setup } of setups) head.push(`p99 ms ${setup.replicas}×`);
  for (const { setup } of setups) head.push(`CPU ms/req ${setup.replicas}×`, `nats ${setup.replicas}×`, `pg ${setup.replicas}×`, `busy % ${setup.replicas}×`);
  const body = base.summaries.map((b) => {
    const rows = setups.map(({ summaries }) => summaries.find((r) => r.scenario === b.scenario));
    const cells = [b.scenario];
    for (const r of rows) cells.push(r ? r.requests_per_s.toFixed(0) : '-');
    for (const r of rows.slice(1)) cells.push(r && b.requests_per_s ? (r.requests_per_s / b.requests_per_s).toFixed(2) : '-');
    for (const r of rows) cells.push(r ? String(r.p99_ms) : '-');
    for (const r of rows) {
      const by = r?.cpu_ms_per_request_by_process;
      cells.push(
        r?.cpu_ms_per_request?.toFixed(2) ?? '-',
        by?.nats?.toFixed(2) ?? '-',
        by?.pg?.toFixed(2) ?? '-',
        r?.machine_busy_pct === null || !r ? '-' : String(r.machine_busy_pct),
      );
    }
    return cells;
  });
  return markdown(head, body, 1);
}

async function main(): Promise<number> {
  const onSignal = (sig: NodeJS.Signals) => {
    process.stderr.write(`\n${sig}: stopping the load, then the stack\n`);
    interrupted = true;
    current?.stop();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const setups: Setup[] = CLUSTER
    ? [
        { label: '1 replica, 1 NATS node', replicas: 1, natsNodes: 1 },
        { label: `${REPLICAS} replicas, 3-node NATS cluster`, replicas: REPLICAS, natsNodes: 3 },
      ]
    : [{ label: `${REPLICAS} replica${REPLICAS > 1 ? 's' : ''}`, replicas: REPLICAS, natsNodes: 0 }];
  try {
    const results: { setup: Setup; rows: Row[]; summaries: Summary[] }[] = [];
    for (const setup of setups) {
      const { rows, lag } = await runSetup(setup);
      const summaries = rows.map(summarize);
      results.push({ setup, rows, summaries });
      process.stdout.write(
        `\n${setup.label}\n${table(summaries)}\n\nCPU ms per request per process (nats: ${setup.natsNodes ? 'its own server(s)' : 'every nats-server on the machine'}; pg: the bench database's backends; busy %: the whole machine)\n${processTable(summaries)}\n\n${lag}\n\n`,
      );
    }
    if (results.length > 1)
      process.stdout.write(`scale-out, ${CONNECTIONS} connections, one run:\n${results.map((r, i) => `  ${i + 1}. ${r.setup.label}`).join('\n')}\n${comparison(results)}\n\n`);
    const head = { node: process.version, cpus: os.cpus().length, connections: CONNECTIONS, duration_s: DURATION_S };
    const report = CLUSTER
      ? { ...head, setups: results.map((r) => ({ label: r.setup.label, replicas: r.setup.replicas, nats_nodes: r.setup.natsNodes, routes: r.summaries })) }
      : { ...head, routes: results[0]?.summaries ?? [] };
    process.stdout.write(`${JSON.stringify(report)}\n`);
    if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(
      `node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), every service of SERVICE_MANIFEST as ${setups.map((s) => s.replicas).join(' then ')} separate process(es)\n`,
    );
    let failed = interrupted;
    for (const { setup, rows } of results) {
      for (const { scenario, result } of rows) {
        if (!errorCount(result)) continue;
        failed = true;
        const codes = Object.entries(result.statusCodeStats)
          .map(([code, s]) => `${code}: ${s.count}`)
          .join(', ');
        process.stderr.write(`${setup.label}, ${scenario}: ${result.non2xx} non-2xx (${codes}), ${result.errors} errors, ${result.timeouts} timeouts\n`);
      }
    }
    return failed ? 1 : 0;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

// bench-compare.ts reuses the helpers above: run the bench only when this is the entry point.
if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
