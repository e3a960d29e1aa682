/**
 * `npm run bench:compare`: the project's hot routes as ratios of Postgres' own speed, in ONE run
 * (the machine is shared and noisy: only ratios and CPU per request measured side by side mean
 * anything).
 *
 * Once: starts the whole stack (tools/stack) on its own database and NATS prefix, and initializes
 * a pgbench database (scale 10) on the same Postgres. Then BENCH_RUNS times (3):
 *   pgbench -N (simple update) and -S (select only), BENCH_CLIENTS clients, BENCH_PGBENCH_S s each;
 *   for each organization size of BENCH_ORG_SIZES (1000,100000): a fresh organization whose
 *   receivables and payables are seeded with that many invoices and bills (SQL copies of one draft
 *   made through the API; the tables' statistics are from before that (ANALYZE first, autovacuum
 *   off on them: an organization that grew since the last autoanalyze, where a plan that walks the
 *   organization's rows shows; BENCH_STATS=fresh analyzes after seeding instead), then through the
 *   gateway with BENCH_CLIENTS connections:
 *     get-invoice     GET  /api/v1/invoices/{id}            (ratio to pgbench -S)
 *     create-invoice  POST /api/v1/invoices                 (ratio to pgbench -N)
 *     post-invoice    POST /api/v1/invoices/{id}/post, BENCH_POST_INVOICES seeded drafts once each
 *     create-bill     POST /api/v1/bills (posted on create)  (ratio to pgbench -N)
 * Each row gives tps, p50/p99, errors, the ratio, and CPU ms per request per process, from
 * /proc/<pid>/stat utime+stime before/after the scenario: gateway and each service, the Postgres
 * backends of the bench database ("pg"), every `postgres` process on the box ("pg*", includes
 * other users' load), nats-server ("nats", shared) and this load generator ("client").
 * Prints each run's table, then the median of the runs per row (BENCH_JSON: also as JSON).
 *
 * BENCH_BASELINE_DIR: another built checkout (e.g. main at the commit before a change): its stack
 * runs beside this one, each scenario on both in turn ("build" column), for before/after in one run.
 *
 * Environment: BENCH_CLIENTS (16), BENCH_DURATION_S (10), BENCH_PGBENCH_S (12), BENCH_RUNS (3),
 * BENCH_ORG_SIZES (1000,100000), BENCH_POST_INVOICES (3000), BENCH_SCENARIOS (all four),
 * BENCH_STATS (stale|fresh), BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres), NATS_URL, PGBENCH
 * (/usr/lib/postgresql/15/bin/pgbench). Exits 1 if any request failed.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { adminCli, freePort, startStack, type Stack } from '@acct/stack';
import { dropDatabase, dropEventsStream, ensureDatabase } from '@acct/kit';
import { createOne, drive, envInt, percentile } from './bench';
import { type CpuSample, cpuPerRequest, sampleCpu } from './cpu';

const run = promisify(execFile);

const CLIENTS = envInt('BENCH_CLIENTS', 16, 1);
const DURATION_S = envInt('BENCH_DURATION_S', 10, 1);
const PGBENCH_S = envInt('BENCH_PGBENCH_S', 12, 1);
const RUNS = envInt('BENCH_RUNS', 3, 1);
const POST_INVOICES = envInt('BENCH_POST_INVOICES', 3000, 1);
const ORG_SIZES = (process.env.BENCH_ORG_SIZES ?? '1000,100000').split(',').map((x) => {
  const n = Number(x.trim());
  if (!Number.isInteger(n) || n < 1) throw new Error(`BENCH_ORG_SIZES: bad size "${x}"`);
  return n;
});
const SCENARIOS = new Set((process.env.BENCH_SCENARIOS ?? 'get-invoice,create-invoice,post-invoice,create-bill').split(',').map((x) => x.trim()));
const PG_SERVER_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const STALE_STATS = (process.env.BENCH_STATS ?? 'stale') !== 'fresh';
const PGBENCH = process.env.PGBENCH ?? '/usr/lib/postgresql/15/bin/pgbench';

// ---- results ----

interface Result {
  run: number;
  /** Which checkout's stack answered: "this", or "baseline" (BENCH_BASELINE_DIR); "-" for pgbench. */
  build: string;
  org_invoices: number | null;
  scenario: string;
  tps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  ratio: number | null;
  ratio_to: string;
  cpu_ms_per_req: CpuSample;
}

const CPU_COLS = ['gateway', 'receivables', 'payables', 'reporting', 'webhook-dispatcher', 'pg', 'pg*', 'nats', 'client'];
const CPU_SHORT: Record<string, string> = { receivables: 'recv', payables: 'pay', reporting: 'rep', 'webhook-dispatcher': 'whd', gateway: 'gw' };

function table(rows: Result[]): string {
  const head = ['build', 'org', 'scenario', 'tps', 'p50 ms', 'p99 ms', 'errors', 'ratio', ...CPU_COLS.map((c) => `${CPU_SHORT[c] ?? c} cpu`), 'sum cpu'];
  const body = rows.map((r) => {
    const sum = CPU_COLS.filter((c) => c !== 'pg*' && c !== 'client').reduce((a, c) => a + (r.cpu_ms_per_req[c] ?? 0), 0);
    return [
      r.build,
      r.org_invoices === null ? '-' : String(r.org_invoices),
      r.scenario,
      r.tps.toFixed(0),
      r.p50_ms.toFixed(1),
      r.p99_ms.toFixed(1),
      String(r.errors),
      r.ratio === null ? '' : `${r.ratio.toFixed(3)} ×${r.ratio_to}`,
      ...CPU_COLS.map((c) => (r.cpu_ms_per_req[c] === undefined ? '' : r.cpu_ms_per_req[c].toFixed(3))),
      sum.toFixed(3),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const left = (i: number) => i < 3;
  const line = (cells: string[]) => `| ${cells.map((c, i) => (left(i) ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  return [line(head), `|${widths.map((w, i) => (left(i) ? ':' : '-') + '-'.repeat(w) + (left(i) ? '-' : ':')).join('|')}|`, ...body.map(line)].join('\n');
}

function median(xs: number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function medians(results: Result[]): Result[] {
  const keyOf = (r: Result) => `${r.org_invoices}|${r.scenario}|${r.build}`;
  const keys = [...new Set(results.map(keyOf))];
  return keys.map((k) => {
    const rs = results.filter((r) => keyOf(r) === k);
    const first = rs[0]!;
    const cpu: CpuSample = {};
    for (const c of Object.keys(first.cpu_ms_per_req)) cpu[c] = median(rs.map((r) => r.cpu_ms_per_req[c] ?? NaN));
    return {
      run: 0,
      build: first.build,
      org_invoices: first.org_invoices,
      scenario: first.scenario,
      tps: median(rs.map((r) => r.tps)),
      p50_ms: median(rs.map((r) => r.p50_ms)),
      p99_ms: median(rs.map((r) => r.p99_ms)),
      errors: rs.reduce((a, r) => a + r.errors, 0),
      ratio: first.ratio === null ? null : median(rs.map((r) => r.ratio ?? NaN)),
      ratio_to: first.ratio_to,
      cpu_ms_per_req: cpu,
    };
  });
}

// ---- pgbench ----

async function pgbench(stack: Stack | undefined, pgbDb: string, mode: '-N' | '-S', runNo: number): Promise<Result> {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-pgbench-'));
  const u = new URL(PG_SERVER_URL);
  const before = sampleCpu(stack, pgbDb);
  const { stdout } = await run(
    PGBENCH,
    [
      mode,
      '-n',
      '-c',
      String(CLIENTS),
      '-j',
      '2',
      '-T',
      String(PGBENCH_S),
      '-l',
      '--log-prefix',
      path.join(logDir, 'tx'),
      '-h',
      u.hostname,
      '-p',
      u.port || '5432',
      '-U',
      decodeURIComponent(u.username || 'postgres'),
      pgbDb,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const after = sampleCpu(stack, pgbDb);
  const lat: number[] = [];
  for (const f of fs.readdirSync(logDir)) {
    for (const l of fs.readFileSync(path.join(logDir, f), 'utf8').split('\n')) {
      const us = Number(l.split(' ')[2]);
      if (l && Number.isFinite(us)) lat.push(us / 1000);
    }
  }
  fs.rmSync(logDir, { recursive: true, force: true });
  lat.sort((a, b) => a - b);
  const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? NaN);
  const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
  const cpu = cpuPerRequest(before, after, lat.length);
  // Only Postgres works for pgbench: keep the columns that mean something.
  const keep: CpuSample = { pg: cpu.pg ?? NaN, 'pg*': cpu['pg*'] ?? NaN };
  return {
    run: runNo,
    build: '-',
    org_invoices: null,
    scenario: `pgbench ${mode}`,
    tps,
    p50_ms: percentile(lat, 50),
    p99_ms: percentile(lat, 99),
    errors: failed,
    ratio: null,
    ratio_to: '',
    cpu_ms_per_req: keep,
  };
}

// ---- the organization under test ----

interface Org {
  build: string;
  invoices: number;
  headers: Record<string, string>;
  customerId: string;
  vendorId: string;
  /** Seeded invoices the GET scenario reads in turn (random ones: not only the newest, first in the list index). */
  readIds: string[];
  /** Seeded drafts the post scenario posts, once each. */
  drafts: string[];
}

/**
 * Copies the template row `templateId` of schema.table `count` times in one INSERT ... SELECT,
 * with the columns of `overrides` replaced by SQL expressions of the series index g.
 */
async function copyRows(db: Client, schema: string, table: string, templateId: string, count: number, overrides: Record<string, string>): Promise<void> {
  if (count <= 0) return;
  const { rows } = await db.query<{ column_name: string }>(
    'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
    [schema, table],
  );
  const cols = rows.map((r) => r.column_name);
  const exprs = cols.map((c) => overrides[c] ?? `t.${c}`);
  await db.query(`INSERT INTO ${schema}.${table} (${cols.join(', ')}) SELECT ${exprs.join(', ')} FROM ${schema}.${table} t, generate_series(1, $2::int) g WHERE t.id = $1`, [
    templateId,
    count,
  ]);
}

async function makeOrg(v: Variant, invoices: number, tag: string): Promise<Org> {
  const { databaseUrl } = v;
  const url = v.stack!.gatewayUrl;
  const boot = await v.adminCli<{ test_key: string; organization_id: string }>(databaseUrl, 'bootstrap', '--name', `Bench ${tag}`, '--json');
  const headers = { authorization: `Bearer ${boot.test_key}`, 'content-type': 'application/json', accept: 'application/json' };
  const cRes = await fetch(`${url}/api/v1/customers`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ external_customer_id: `c-${tag}`, name: 'Bench customer', email: 'c@example.com' }),
  });
  if (cRes.status !== 201) throw new Error(`creating the customer failed: ${cRes.status} ${await cRes.text()}`);
  const customerId = ((await cRes.json()) as { customer: { id: string } }).customer.id;
  const vendorId = await createOne(`${url}/api/v1/vendors`, headers, { external_vendor_id: `v-${tag}`, display_name: 'Bench vendor', is_1099_eligible: true });
  const invoiceTemplate = await createOne(`${url}/api/v1/invoices`, headers, {
    external_invoice_id: `tpl-${tag}`,
    customer_id: customerId,
    invoice_number: 'T-1',
    issue_date: '2026-11-01',
    due_date: '2026-12-01',
    line_items: [{ description: 'Bench work', quantity: 1.25, unit_amount_cents: 10_000 }],
  });
  const billTemplate = await createOne(`${url}/api/v1/bills`, headers, {
    external_bill_id: `tpl-${tag}`,
    vendor_id: vendorId,
    bill_number: 'VT-1',
    issue_date: '2026-11-01',
    due_date: '2026-12-01',
    line_items: [{ description: 'Bench supplies', quantity: 1, unit_amount_cents: 10_000 }],
  });
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    for (const t of ['receivables.invoices', 'payables.bills']) {
      if (STALE_STATS) await db.query(`ALTER TABLE ${t} SET (autovacuum_enabled = false)`);
      if (STALE_STATS) await db.query(`ANALYZE ${t}`);
    }
    // Older than anything the scenarios make; drafts, so the ledger does not need to know them.
    await copyRows(db, 'receivables', 'invoices', invoiceTemplate, invoices - 1, {
      id: 'gen_random_uuid()',
      external_invoice_id: `'seed-' || g`,
      invoice_number: `'S-' || g`,
      created_at: `t.created_at - g * interval '1 second'`,
    });
    await copyRows(db, 'payables', 'bills', billTemplate, invoices - 1, {
      id: 'gen_random_uuid()',
      external_bill_id: `'seed-' || g`,
      bill_number: `'SB-' || g`,
      status: `'draft'`,
      journal_entry_id: 'NULL',
      posted_at: 'NULL',
      created_at: `t.created_at - g * interval '1 second'`,
    });
    if (!STALE_STATS) await db.query('ANALYZE receivables.invoices');
    if (!STALE_STATS) await db.query('ANALYZE payables.bills');
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM receivables.invoices WHERE organization_id = $1 AND status = 'draft' AND id <> $2 ORDER BY random() LIMIT $3`, [
      boot.organization_id,
      invoiceTemplate,
      POST_INVOICES,
    ]);
    if (rows.length < Math.min(POST_INVOICES, invoices - 1)) throw new Error('seeding drafts failed');
    const reads = await db.query<{ id: string }>(`SELECT id FROM receivables.invoices WHERE organization_id = $1 ORDER BY random() LIMIT 500`, [boot.organization_id]);
    return { build: v.label, invoices, headers, customerId, vendorId, readIds: reads.rows.map((r) => r.id), drafts: rows.map((r) => r.id) };
  } finally {
    await db.end();
  }
}

// ---- scenarios ----

async function scenario(
  stack: Stack,
  dbName: string,
  runNo: number,
  org: Org | null,
  name: string,
  ratioTo: { mode: string; tps: number } | null,
  opts: autocannon.Options,
): Promise<Result> {
  const before = sampleCpu(stack, dbName);
  const { result, samples } = await drive(opts);
  const after = sampleCpu(stack, dbName);
  const sorted = [...samples].sort((a, b) => a - b);
  const tps = (samples.length * 1000) / Math.max(1, result.duration * 1000);
  return {
    run: runNo,
    build: org?.build ?? '-',
    org_invoices: org?.invoices ?? null,
    scenario: name,
    tps,
    p50_ms: percentile(sorted, 50),
    p99_ms: percentile(sorted, 99),
    errors: result.non2xx + result.errors + result.timeouts,
    ratio: ratioTo ? tps / ratioTo.tps : null,
    ratio_to: ratioTo?.mode ?? '',
    cpu_ms_per_req: cpuPerRequest(before, after, samples.length),
  };
}

async function orgScenarios(stack: Stack, dbName: string, runNo: number, org: Org, n: { '-N': number; '-S': number }, tag: string): Promise<Result[]> {
  const url = stack.gatewayUrl;
  const out: Result[] = [];
  const N = { mode: 'N', tps: n['-N'] };
  if (SCENARIOS.has('get-invoice')) {
    let reads = 0;
    out.push(
      await scenario(
        stack,
        dbName,
        runNo,
        org,
        'get-invoice',
        { mode: 'S', tps: n['-S'] },
        {
          url,
          connections: CLIENTS,
          headers: org.headers,
          duration: DURATION_S,
          requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, method: 'GET', path: `/api/v1/invoices/${org.readIds[reads++ % org.readIds.length]}` }) }],
        },
      ),
    );
  }
  if (SCENARIOS.has('create-invoice')) {
    let k = 0;
    out.push(
      await scenario(stack, dbName, runNo, org, 'create-invoice', N, {
        url,
        connections: CLIENTS,
        headers: org.headers,
        duration: DURATION_S,
        requests: [
          {
            method: 'POST',
            path: '/api/v1/invoices',
            setupRequest: (req) => {
              k += 1;
              return {
                ...req,
                body: JSON.stringify({
                  external_invoice_id: `b-${tag}-${k}`,
                  customer_id: org.customerId,
                  invoice_number: `B-${k}`,
                  issue_date: '2026-11-01',
                  due_date: '2026-12-01',
                  line_items: [{ description: 'Bench work', quantity: 1.25, unit_amount_cents: 10_000 + k }],
                }),
              };
            },
          },
        ],
      }),
    );
  }
  if (SCENARIOS.has('post-invoice')) {
    let next = 0;
    out.push(
      await scenario(stack, dbName, runNo, org, 'post-invoice', N, {
        url,
        connections: CLIENTS,
        headers: org.headers,
        amount: org.drafts.length,
        requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, method: 'POST', path: `/api/v1/invoices/${org.drafts[next++ % org.drafts.length]}/post` }) }],
      }),
    );
  }
  if (SCENARIOS.has('create-bill')) {
    let b = 0;
    out.push(
      await scenario(stack, dbName, runNo, org, 'create-bill', N, {
        url,
        connections: CLIENTS,
        headers: org.headers,
        duration: DURATION_S,
        requests: [
          {
            method: 'POST',
            path: '/api/v1/bills',
            setupRequest: (req) => {
              b += 1;
              return {
                ...req,
                body: JSON.stringify({
                  external_bill_id: `b-${tag}-${b}`,
                  vendor_id: org.vendorId,
                  bill_number: `VB-${b}`,
                  issue_date: '2026-11-01',
                  due_date: '2026-12-01',
                  line_items: [{ description: 'Bench supplies', quantity: 1, unit_amount_cents: 10_000 + b }],
                }),
              };
            },
          },
        ],
      }),
    );
  }
  return out;
}

/** One checkout's stack under test, on its own database and NATS prefix. */
interface Variant {
  label: string;
  dbName: string;
  databaseUrl: string;
  natsPrefix: string;
  startStack: typeof startStack;
  adminCli: typeof adminCli;
  stack?: Stack;
}

async function main(): Promise<number> {
  const id = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const pgbDb = `acct_pgb_${id}`;
  const dbUrl = new URL(PG_SERVER_URL);
  dbUrl.pathname = `/${pgbDb}`;
  const pgbUrl = dbUrl.toString();
  const variant = (label: string, stackLib: { startStack: typeof startStack; adminCli: typeof adminCli }): Variant => {
    const dbName = `acct_cmp_${id}_${label}`;
    const u = new URL(PG_SERVER_URL);
    u.pathname = `/${dbName}`;
    return { label, dbName, databaseUrl: u.toString(), natsPrefix: `cmp-${id}-${label}`.replace(/_/g, '-'), ...stackLib };
  };
  // BENCH_BASELINE_DIR: another built checkout (e.g. main); its stack runs beside this one and each
  // scenario runs on both in turn, so that before and after share one run of a noisy machine.
  const baselineDir = process.env.BENCH_BASELINE_DIR;
  const variants: Variant[] = [];
  if (baselineDir)
    variants.push(variant('baseline', (await import(path.resolve(baselineDir, 'tools/stack/dist/index.js'))) as { startStack: typeof startStack; adminCli: typeof adminCli }));
  variants.push(variant('this', { startStack, adminCli }));
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-bench-compare-'));
  let failed = true;
  try {
    process.stdout.write(`bench:compare: databases ${variants.map((v) => v.dbName).join(', ')}, pgbench database ${pgbDb}, logs in ${logDir}\n`);
    await ensureDatabase(pgbUrl);
    const u = new URL(PG_SERVER_URL);
    await run(PGBENCH, ['-i', '-q', '-s', '10', '-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username || 'postgres'), pgbDb]);
    for (const v of variants) {
      v.stack = await v.startStack({
        databaseUrl: v.databaseUrl,
        natsUrl: NATS_URL,
        natsPrefix: v.natsPrefix,
        gatewayPort: await freePort(),
        logs: { dir: path.join(logDir, v.label) },
        env: { LOG_LEVEL: 'warn', RATE_LIMIT_RPS: '1000000', RATE_LIMIT_BURST: '1000000', RATE_LIMIT_CLIENT_RPS: '1000000', RATE_LIMIT_CLIENT_BURST: '1000000' },
      });
      // Warm-up (not reported): JIT, pools and caches of every process.
      const warm = await makeOrg(v, 10, `${id}-warm`);
      await orgScenarios(v.stack, v.dbName, 0, warm, { '-N': 1, '-S': 1 }, `${id}-warm`).catch(() => undefined);
    }

    const all: Result[] = [];
    for (let r = 1; r <= RUNS; r++) {
      const rows: Result[] = [];
      const n = await pgbench(undefined, pgbDb, '-N', r);
      const s = await pgbench(undefined, pgbDb, '-S', r);
      rows.push(n, s);
      for (const size of ORG_SIZES) {
        for (const v of variants) {
          const tag = `${id}-r${r}-${size}`;
          process.stdout.write(`run ${r}/${RUNS}: ${v.label}, organization with ${size} invoices and bills\n`);
          const org = await makeOrg(v, size, tag);
          rows.push(...(await orgScenarios(v.stack!, v.dbName, r, org, { '-N': n.tps, '-S': s.tps }, tag)));
        }
      }
      process.stdout.write(`\nrun ${r}/${RUNS} (${CLIENTS} clients; CPU = ms per request per process)\n${table(rows)}\n\n`);
      all.push(...rows);
    }
    const med = medians(all);
    process.stdout.write(
      `median of ${RUNS} run(s), ${CLIENTS} clients, node ${process.version}, ${os.cpus().length} CPUs; ratio = tps / pgbench tps of the same run;\n` +
        `CPU ms/request: pg = backends of the bench database, pg* = every postgres process (others' load too), nats = the shared nats-server, sum = all but pg* and client\n` +
        `${table(med)}\n`,
    );
    if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, `${JSON.stringify({ clients: CLIENTS, runs: all, medians: med }, null, 2)}\n`);
    failed = all.some((r) => r.errors > 0);
    if (failed) process.stderr.write('some requests failed (see the errors column)\n');
    return failed ? 1 : 0;
  } finally {
    for (const v of variants) {
      try {
        await v.stack?.stop();
      } finally {
        await dropDatabase(v.databaseUrl);
        await dropEventsStream(NATS_URL, v.natsPrefix).catch(() => undefined);
      }
    }
    await dropDatabase(pgbUrl);
    if (failed) process.stderr.write(`service logs kept in ${logDir}\n`);
    else fs.rmSync(logDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench:compare failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
