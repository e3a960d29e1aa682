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
 *     mixed           each connection in turn: 8 reads (GET /api/v1/invoices/{id} ×4,
 *                     GET /api/v1/bills/{id} ×3, GET /api/v1/invoices?limit=20) and 2 writes
 *                     (POST /api/v1/bills, POST /api/v1/invoices/{id}/post of seeded drafts: half of
 *                     them when post-invoice runs too; a bill once they ran out), for
 *                     BENCH_DURATION_S; then it waits (at most 2 min) until reporting holds every
 *                     journal entry the writes made, so the consumers' catching up counts in its
 *                     CPU, and prints that lag. Rows: "mixed" (every request), "mixed reads" (ratio
 *                     to -S) and "mixed writes" (ratio to -N), each with its own tps and p50/p99.
 * Each row gives tps, p50/p99, errors, the ratio, and CPU ms per request per process, from
 * /proc/<pid>/stat utime+stime before/after the scenario: gateway and each service, the Postgres
 * backends of the bench database ("pg"), every `postgres` process on the box ("pg*", includes
 * other users' load), nats-server ("nats", shared) and this load generator ("client").
 * A second table gives each process's peak resident memory during the scenario in MB (VmRSS less
 * RssShmem from /proc/<pid>/status every 0.5 s; pg: the bench database's backends summed; nats:
 * the shared nats-server). A third, the statements each process sent to Postgres per request
 * (BEGIN/COMMIT included), counted client side by pg-count.ts, which the stacks' processes preload
 * (node --require through STACK_NODE_ARGS; the baseline's stack too); after the tables, the top 5
 * statements per scenario by client time over all runs. pg_stat_statements is not used (loading it
 * restarts the server): one line says whether it is loaded and how to load it.
 * Prints each run's tables, then the median of the runs per row (BENCH_JSON: also as JSON).
 *
 * BENCH_BASELINE_DIR: another built checkout (e.g. main at the commit before a change): its stack
 * runs beside this one, each scenario on both in turn ("build" column), for before/after in one run;
 * the baseline first in odd runs, this build first in even ones (an even BENCH_RUNS balances them).
 *
 * Environment: BENCH_CLIENTS (16), BENCH_DURATION_S (10), BENCH_RATE (requests/s over all
 * connections; 0, the default: as fast as they go; set it to compare builds at one rate, as CPU per
 * request falls when the rate rises), BENCH_LOG_LEVEL (warn), BENCH_PGBENCH_S (12), BENCH_RUNS (3),
 * BENCH_ORG_SIZES (1000,100000), BENCH_POST_INVOICES (3000), BENCH_SCENARIOS (all five),
 * BENCH_STATEMENTS (1; 0: no statement counting), BENCH_STATS (stale|fresh), BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres), NATS_URL, PGBENCH
 * (/usr/lib/postgresql/15/bin/pgbench). Exits 1 if any request failed.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminCli, freePort, startStack } from '@acct/stack';
import { dropDatabase, dropEventsStream, ensureDatabase } from '@acct/kit';
import { Client } from 'pg';
import { CLIENTS, COUNT_STATEMENTS, NATS_URL, ORG_SIZES, PGBENCH, PG_SERVER_URL, RUNS } from './compare-env';
import { type Variant, makeOrg } from './compare-org';
import { pgbench, run } from './compare-pgbench';
import { type Result, medians, rssTable, statementTable, table } from './compare-results';
import { type Target, orgScenarios, statementsByScenario } from './compare-scenarios';
import { COUNTER_PRELOAD } from './statements';

/** One line on pg_stat_statements: this bench counts statements client side whether or not the server has it. */
async function pgStatStatementsNote(): Promise<string> {
  const db = new Client({ connectionString: PG_SERVER_URL });
  await db.connect();
  try {
    const { rows } = await db.query<{ shared_preload_libraries: string }>('SHOW shared_preload_libraries');
    const loaded = (rows[0]?.shared_preload_libraries ?? '').split(',').some((l) => l.trim() === 'pg_stat_statements');
    return loaded
      ? "pg_stat_statements is loaded on this server (statement counts below are still the client side's: by process, not by database)"
      : "pg_stat_statements is not loaded on this server (to enable: shared_preload_libraries = 'pg_stat_statements' in postgresql.conf, restart, CREATE EXTENSION pg_stat_statements); statements are counted client side";
  } finally {
    await db.end();
  }
}

/** A statement's shape for one line: long SELECT and INSERT column lists as "…", cut at `width`. */
function brief(text: string, width: number): string {
  const t = text.replace(/^(select) (.{30,}?) (from) /i, '$1 … $3 ').replace(/^(insert into \S+(?: as \S+)?) \([^)]{30,}\)/i, '$1 (…)');
  return t.length > width ? `${t.slice(0, width - 3)}...` : t;
}

/** The statements that took the most client time per scenario over all runs, per request. */
function topStatements(limit: number): string {
  const out: string[] = [];
  for (const [key, { requests, statements }] of statementsByScenario) {
    const [build, org, scenario] = key.split('|');
    out.push(`${scenario} (${build}, org ${org}), ${requests} requests:`);
    const top = [...statements.values()].sort((a, b) => b.ms - a.ms).slice(0, limit);
    for (const s of top) {
      const text = brief(s.text, 130);
      out.push(
        `  ${(s.ms / requests).toFixed(3).padStart(7)} ms/req ${(s.n / requests).toFixed(2).padStart(6)} calls/req ${(s.ms / s.n).toFixed(2).padStart(6)} ms/call  ${s.group.padEnd(18)} ${text}`,
      );
    }
  }
  return out.join('\n');
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
  const countDir = COUNT_STATEMENTS ? path.join(logDir, 'pg-count') : undefined;
  if (countDir) fs.mkdirSync(countDir);
  const target = (v: Variant): Target => ({ stack: v.stack!, dbName: v.dbName, databaseUrl: v.databaseUrl, countDir });
  let failed = true;
  try {
    process.stdout.write(`bench:compare: databases ${variants.map((v) => v.dbName).join(', ')}, pgbench database ${pgbDb}, logs in ${logDir}\n`);
    if (COUNT_STATEMENTS) process.stdout.write(`${await pgStatStatementsNote()}\n`);
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
        env: {
          LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
          RATE_LIMIT_RPS: '1000000',
          RATE_LIMIT_BURST: '1000000',
          RATE_LIMIT_CLIENT_RPS: '1000000',
          RATE_LIMIT_CLIENT_BURST: '1000000',
          // The statement counter, preloaded into every process (this checkout's, for the baseline's stack too).
          ...(countDir ? { BENCH_PG_COUNT_DIR: countDir, STACK_NODE_ARGS: `${process.env.STACK_NODE_ARGS ?? ''} ${COUNTER_PRELOAD}`.trim() } : {}),
        },
      });
      // Warm-up (not reported): JIT, pools and caches of every process.
      const warm = await makeOrg(v, 10, `${id}-warm`);
      await orgScenarios(target(v), 0, warm, { '-N': 1, '-S': 1 }, `${id}-warm`).catch(() => undefined);
      statementsByScenario.clear();
    }

    const all: Result[] = [];
    for (let r = 1; r <= RUNS; r++) {
      const rows: Result[] = [];
      const n = await pgbench(undefined, pgbDb, '-N', r);
      const s = await pgbench(undefined, pgbDb, '-S', r);
      rows.push(n, s);
      for (const size of ORG_SIZES) {
        // Odd runs start with the first build, even runs with the other: a build is not always the one
        // measured on a machine the other just warmed (or loaded), so use an even BENCH_RUNS for a fair median.
        for (const v of r % 2 === 1 ? variants : [...variants].reverse()) {
          const tag = `${id}-r${r}-${size}`;
          process.stdout.write(`run ${r}/${RUNS}: ${v.label}, organization with ${size} invoices and bills\n`);
          const org = await makeOrg(v, size, tag);
          rows.push(...(await orgScenarios(target(v), r, org, { '-N': n.tps, '-S': s.tps }, tag)));
        }
      }
      process.stdout.write(`\nrun ${r}/${RUNS} (${CLIENTS} clients; CPU = ms per request per process)\n${table(rows)}\n\n`);
      process.stdout.write(`run ${r}/${RUNS}: peak MB resident per process (pg: backends of the bench database summed; RSS less shared memory)\n${rssTable(rows)}\n\n`);
      if (countDir) process.stdout.write(`run ${r}/${RUNS}: statements to Postgres per request per process (BEGIN/COMMIT included)\n${statementTable(rows)}\n\n`);
      all.push(...rows);
    }
    const med = medians(all);
    process.stdout.write(
      `median of ${RUNS} run(s), ${CLIENTS} clients, node ${process.version}, ${os.cpus().length} CPUs; ratio = tps / pgbench tps of the same run;\n` +
        `CPU ms/request: pg = backends of the bench database, pg* = every postgres process (others' load too), nats = the shared nats-server, sum = all but pg* and client\n` +
        `${table(med)}\n\n` +
        `peak MB resident per process (median of the runs)\n${rssTable(med)}\n`,
    );
    if (countDir)
      process.stdout.write(
        `\nstatements to Postgres per request per process (median of the runs)\n${statementTable(med)}\n\n` +
          `top statements by client time (send to result, over all runs), per request\n${topStatements(5)}\n`,
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
