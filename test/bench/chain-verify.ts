/**
 * How long the tamper-evident journal's verification takes (API-DECISIONS §12, issue #25) for one
 * chain of BENCH_CHAIN_ENTRIES entries (1000000), each of 2 or 3 lines:
 *
 *   npm run bench:chain                                   (builds, then runs this)
 *   BENCH_CHAIN_ENTRIES=368000 BENCH_RUNS=5 npm run bench:chain
 *   BENCH_KEEP_DB=1 npm run bench:chain                   (keeps the seeded database, prints its URL)
 *   BENCH_DB_URL=postgres://…/acct_chainbench_123 node test/bench/dist/chain-verify.js   (no seeding)
 *
 * On a database of its own (dropped at the end unless kept): runs the posting services' migrations,
 * seeds the chain through the one writer in large calls (chain-seed.ts: the chain is the real one),
 * then verifies it BENCH_RUNS (3) times per verifier, alternating, each run in a fresh child process
 * (so that its peak RSS is the verifier's, not the seeder's). Prints each run's time, entries/s, CPU
 * time in Node and in Postgres (from /proc, Postgres on this machine: the work done, which a loaded
 * machine does not inflate as it does the wall time) and peak RSS, then the medians.
 *
 * Verifiers (BENCH_VERIFIERS, default `new,old`): `new` is the posting service's (verifyChain: one
 * snapshot, one query per keyset batch of 1000 entries with their lines as JSON, the next batch
 * asked for while this one is hashed); `old` is the verifier as it was before issue #25 (two queries
 * per batch: the entries, then their lines by entry id), kept here only to compare on the same
 * data. Figures, not a test: nothing asserts a time.
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { type Orm, dropDatabase, ensureDatabase, migrate, openOrm, statement, transactionQuery } from '@acct/kit';
import { type ChainEntry, type ChainLine, GENESIS_HASH, type LedgerScope, type RunNamed, VERIFY_SNAPSHOT, chainHash } from '@acct/ledger';
import { verifyChain, withPostingMigrations } from '@acct/posting';
import { seedChain } from './chain-seed';

const ENTRIES = Number(process.env.BENCH_CHAIN_ENTRIES ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const VERIFIERS = (process.env.BENCH_VERIFIERS ?? 'new,old').split(',').filter(Boolean);
const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SCHEMA = 'payables';

const openBenchOrm = (url: string) => openOrm({ url, schema: SCHEMA, entities: [], migrations: withPostingMigrations([]), poolMax: 2 });

/** The verifier before issue #25, verbatim but for its result (intact or not): two queries per batch. */
async function verifyTwoQueries(orm: Orm, scope: LedgerScope, batch = 1000): Promise<{ entries: number; intact: boolean }> {
  return orm.em.fork().transactional(async (em) => {
    const q = await transactionQuery(em);
    const run: RunNamed = (s, values) => q(statement(s.name, s.sql), values);
    await run(VERIFY_SNAPSHOT, []);
    const [head] = await run<{ entries: string; head_hash: string }>(
      { name: 'bench_old_head', sql: 'SELECT entries::text AS entries, head_hash FROM journal_chain_heads WHERE organization_id = ? AND environment = ?' },
      [scope.organizationId, scope.environment],
    );
    const page = {
      name: 'bench_old_page',
      sql: `SELECT id::text AS id, entry_date::text AS entry_date, source_type, source_id::text AS source_id, memo,
    reverses_entry_id::text AS reverses_entry_id, chain_seq::text AS seq, hash
  FROM journal_entries WHERE organization_id = ? AND environment = ? AND chain_seq > ?
  ORDER BY chain_seq LIMIT ?`,
    };
    const pageLines = {
      name: 'bench_old_page_lines',
      sql: `SELECT entry_id::text AS entry_id, account_id::text AS account_id, account_code, side, amount_cents::text AS amount_cents,
    customer_id::text AS customer_id, invoice_id::text AS invoice_id, vendor_id::text AS vendor_id, bill_id::text AS bill_id, memo
  FROM journal_lines WHERE entry_id = ANY (?::uuid[]) ORDER BY entry_id, line_no`,
    };
    let hash = GENESIS_HASH;
    let seq = 0;
    for (;;) {
      const rows = await run<Record<string, string | null>>(page, [scope.organizationId, scope.environment, seq, batch]);
      if (!rows.length) break;
      const lines = new Map<string, ChainLine[]>();
      for (const l of await run<Record<string, string | null>>(pageLines, [rows.map((r) => r.id)])) {
        let list = lines.get(l.entry_id!);
        if (!list) lines.set(l.entry_id!, (list = []));
        list.push({
          accountId: l.account_id!,
          accountCode: l.account_code!,
          side: l.side as ChainLine['side'],
          amountCents: Number(l.amount_cents),
          customerId: l.customer_id ?? null,
          invoiceId: l.invoice_id ?? null,
          vendorId: l.vendor_id ?? null,
          billId: l.bill_id ?? null,
          memo: l.memo ?? null,
        });
      }
      for (const r of rows) {
        if (Number(r.seq) !== seq + 1) return { entries: seq, intact: false };
        seq += 1;
        const entry: ChainEntry = {
          id: r.id!,
          entryDate: r.entry_date!,
          sourceType: r.source_type!,
          sourceId: r.source_id!,
          memo: r.memo ?? null,
          reversesEntryId: r.reverses_entry_id ?? null,
          lines: lines.get(r.id!) ?? [],
        };
        hash = chainHash(hash, entry);
        if (hash !== r.hash) return { entries: seq, intact: false };
      }
      if (rows.length < batch) break;
    }
    return { entries: seq, intact: seq === Number(head?.entries ?? 0) && hash === (head?.head_hash ?? GENESIS_HASH) };
  });
}

interface RunResult {
  entries: number;
  seconds: number;
  rssMb: number;
  /** CPU time of this process and of the database's backends during the run (the work done, whatever the machine's load). */
  nodeCpuS: number;
  pgCpuS: number | null;
}

/** CPU seconds so far of each backend of the current database (but `pg`'s own), from /proc (Postgres on this machine); null if unreadable. */
async function backendCpu(pg: Client): Promise<Map<number, number> | null> {
  const { rows } = await pg.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  const ticks = 100; // USER_HZ on Linux
  try {
    return new Map(
      rows.map((r) => {
        const stat = readFileSync(`/proc/${r.pid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return [r.pid, (Number(f[11]) + Number(f[12])) / ticks]; // utime, stime (fields 14 and 15)
      }),
    );
  } catch {
    return null;
  }
}

/** The child: one verification with one verifier; sends its time, entries and peak RSS to the parent. */
async function verifyOnce(verifier: string, url: string, scope: LedgerScope): Promise<void> {
  const orm = await openBenchOrm(url);
  const pg = new Client({ connectionString: url });
  try {
    await pg.connect();
    // The pool's connections exist before the clock starts: their CPU is counted from here.
    await Promise.all([orm.em.getConnection().execute('SELECT 1'), orm.em.getConnection().execute('SELECT 1')]);
    const pgBefore = await backendCpu(pg);
    const cpu = process.cpuUsage();
    const t = process.hrtime.bigint();
    let entries: number;
    if (verifier === 'old') {
      const v = await verifyTwoQueries(orm, scope);
      if (!v.intact) throw new Error(`old verification failed: ${JSON.stringify(v)}`);
      entries = v.entries;
    } else {
      const v = await verifyChain(orm, scope);
      if (v.reason !== null) throw new Error(`verification failed: ${JSON.stringify(v)}`);
      entries = v.entries;
    }
    const seconds = Number(process.hrtime.bigint() - t) / 1e9;
    const used = process.cpuUsage(cpu);
    const pgAfter = await backendCpu(pg);
    const pgCpuS = pgBefore && pgAfter ? [...pgAfter].reduce((n, [pid, s]) => n + s - (pgBefore.get(pid) ?? 0), 0) : null;
    const result: RunResult = { entries, seconds, rssMb: Math.round(process.resourceUsage().maxRSS / 1024), nodeCpuS: (used.user + used.system) / 1e6, pgCpuS };
    await new Promise<void>((resolve) => process.send!(result, () => resolve()));
  } finally {
    await pg.end().catch(() => undefined);
    await orm.close(true);
  }
}

function child(verifier: string, url: string, scope: LedgerScope): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    let result: RunResult | undefined;
    const c = fork(__filename, ['verify', verifier, url, scope.organizationId, scope.environment], { stdio: 'inherit' });
    c.on('message', (m) => (result = m as RunResult));
    c.on('exit', (code) => (code === 0 && result ? resolve(result) : reject(new Error(`the ${verifier} verifier exited with ${code}`))));
  });
}

/** RUNS rounds, each verifier once per round (alternating, so that both see the same machine load). */
async function verifyRounds(url: string, scope: LedgerScope): Promise<void> {
  const results = new Map<string, RunResult[]>(VERIFIERS.map((v) => [v, []]));
  for (let r = 0; r < RUNS; r++) {
    for (const verifier of VERIFIERS) {
      const x = await child(verifier, url, scope);
      results.get(verifier)!.push(x);
      process.stdout.write(
        `[${verifier}] run ${r + 1}: ${x.entries} entries intact in ${x.seconds.toFixed(2)} s (${Math.round(x.entries / x.seconds)} entries/s); ` +
          `CPU node ${x.nodeCpuS.toFixed(1)} s + postgres ${x.pgCpuS?.toFixed(1) ?? '?'} s; peak RSS ${x.rssMb} MB\n`,
      );
    }
  }
  for (const [verifier, xs] of results) {
    const mid = <T>(v: T[], by: (x: T) => number) => [...v].sort((a, b) => by(a) - by(b))[Math.floor(v.length / 2)]!;
    const median = mid(xs, (x) => x.seconds);
    const cpu = mid(xs, (x) => x.nodeCpuS + (x.pgCpuS ?? 0));
    process.stdout.write(
      `[${verifier}] median of ${xs.length}: ${median.seconds.toFixed(2)} s for ${median.entries} entries (${Math.round(median.entries / median.seconds)} entries/s); ` +
        `median CPU node ${cpu.nodeCpuS.toFixed(1)} s + postgres ${cpu.pgCpuS?.toFixed(1) ?? '?'} s; peak RSS ${Math.max(...xs.map((x) => x.rssMb))} MB\n`,
    );
  }
}

async function main(): Promise<void> {
  let url = process.env.BENCH_DB_URL;
  const seeding = !url;
  if (!url) {
    const u = new URL(PG);
    u.pathname = `/acct_chainbench_${process.pid}`;
    url = u.toString();
  }
  const pg = new Client({ connectionString: url });
  let scope: LedgerScope;
  try {
    if (seeding) {
      await ensureDatabase(url);
      const orm = await openBenchOrm(url);
      await migrate(orm).finally(() => orm.close(true));
      await pg.connect();
      await pg.query(`SET search_path = ${SCHEMA}`);
      scope = { organizationId: randomUUID(), environment: 'live' };
      const seedStart = Date.now();
      await seedChain(pg, scope, ENTRIES, {
        onProgress: (n) => process.stdout.write(`seeded ${n} entries, ${((Date.now() - seedStart) / 1000).toFixed(0)} s\n`),
      });
      const seedS = (Date.now() - seedStart) / 1000;
      const { rows } = await pg.query<{ lines: string }>('SELECT count(*)::text AS lines FROM journal_lines');
      process.stdout.write(
        `seeded ${ENTRIES} entries (${rows[0]!.lines} lines) through the writer in ${seedS.toFixed(1)} s (${Math.round(ENTRIES / seedS)} entries/s); peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`,
      );
      await pg.query('VACUUM ANALYZE journal_entries');
      await pg.query('VACUUM ANALYZE journal_lines');
    } else {
      await pg.connect();
      await pg.query(`SET search_path = ${SCHEMA}`);
      const { rows } = await pg.query<{ organization_id: string; environment: 'live' | 'test' }>(
        'SELECT organization_id::text AS organization_id, environment FROM journal_chain_heads ORDER BY entries DESC LIMIT 1',
      );
      scope = { organizationId: rows[0]!.organization_id, environment: rows[0]!.environment };
    }
    await verifyRounds(url, scope);
  } finally {
    await pg.end().catch(() => undefined);
    if (seeding && !process.env.BENCH_KEEP_DB) await dropDatabase(url);
    else process.stdout.write(`kept: BENCH_DB_URL=${url}\n`);
  }
}

const [mode, verifier, url, organizationId, environment] = process.argv.slice(2);
(mode === 'verify' ? verifyOnce(verifier!, url!, { organizationId: organizationId!, environment: environment as LedgerScope['environment'] }) : main()).catch((e) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
