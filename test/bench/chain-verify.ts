/**
 * `node test/bench/dist/chain-verify.js`: how long the tamper-evident journal's verification takes
 * (API-DECISIONS §12) for one chain of BENCH_CHAIN_ENTRIES entries (1000000), each of 2 lines.
 *
 * On a database of its own (dropped at the end; BENCH_KEEP_DB=1 keeps it): runs the posting
 * services' migrations, seeds the entries through the one writer (insertJournalEntries, so the
 * chain is the real one: the heads locked, every entry hashed) in transactions of BENCH_CHAIN_BATCH
 * (2000) entries, then verifies the chain BENCH_RUNS (3) times as the posting service does (one
 * snapshot, keyset batches of 1000) and prints each time, the median, entries/s, and the process's
 * peak RSS (memory stays one batch, whatever the chain's length).
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { dropDatabase, ensureDatabase, migrate, openOrm, positional, statement } from '@acct/kit';
import { ACCOUNT, type EntryToWrite, type RunNamed, insertDefaultAccounts, insertJournalEntries } from '@acct/ledger';
import { verifyChain, withPostingMigrations } from '@acct/posting';

const ENTRIES = Number(process.env.BENCH_CHAIN_ENTRIES ?? 1_000_000);
const BATCH = Number(process.env.BENCH_CHAIN_BATCH ?? 2000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SCHEMA = 'payables';

async function main(): Promise<void> {
  const u = new URL(PG);
  u.pathname = `/acct_chainbench_${process.pid}`;
  const url = u.toString();
  await ensureDatabase(url);
  const orm = await openOrm({ url, schema: SCHEMA, entities: [], migrations: withPostingMigrations([]), poolMax: 2 });
  const pg = new Client({ connectionString: url });
  try {
    await migrate(orm);
    await pg.connect();
    await pg.query(`SET search_path = ${SCHEMA}`);
    const run: RunNamed = async <R>(s: { name: string; sql: string }, values: unknown[]) => (await pg.query({ ...statement(s.name, s.sql), values })).rows as R[];
    const scope = { organizationId: randomUUID(), environment: 'live' as const };
    await insertDefaultAccounts((sql, params) => pg.query(positional(sql), params), scope.organizationId, scope.environment);
    const seedStart = Date.now();
    for (let done = 0; done < ENTRIES; done += BATCH) {
      const entries: EntryToWrite[] = [];
      for (let i = done; i < Math.min(done + BATCH, ENTRIES); i++) {
        const cents = 100 + (i % 10_000);
        entries.push({
          scope,
          entry: {
            id: randomUUID(),
            entryDate: '2026-11-01',
            sourceType: 'bill',
            sourceId: randomUUID(),
            memo: `bench ${i}`,
            lines: [
              { accountCode: ACCOUNT.expenses, side: 'debit', amountCents: cents },
              { accountCode: ACCOUNT.payable, side: 'credit', amountCents: cents },
            ],
          },
        });
      }
      await pg.query('BEGIN');
      await insertJournalEntries(run, entries);
      await pg.query('COMMIT');
      if ((done / BATCH) % 50 === 0) process.stdout.write(`seeded ${done + entries.length} entries, ${((Date.now() - seedStart) / 1000).toFixed(0)} s\n`);
    }
    const seedS = (Date.now() - seedStart) / 1000;
    process.stdout.write(`seeded ${ENTRIES} entries through the writer in ${seedS.toFixed(1)} s (${Math.round(ENTRIES / seedS)} entries/s)\n`);
    await pg.query('VACUUM ANALYZE journal_entries');
    await pg.query('VACUUM ANALYZE journal_lines');
    const times: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const t = Date.now();
      const v = await verifyChain(orm, scope);
      const s = (Date.now() - t) / 1000;
      if (v.reason !== null || v.entries !== ENTRIES) throw new Error(`verification failed: ${JSON.stringify(v)}`);
      times.push(s);
      process.stdout.write(`verify run ${r + 1}: ${v.entries} entries intact in ${s.toFixed(1)} s (${Math.round(v.entries / s)} entries/s)\n`);
    }
    const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
    process.stdout.write(
      `verify median of ${RUNS}: ${median.toFixed(1)} s for ${ENTRIES} entries (${Math.round(ENTRIES / median)} entries/s); peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`,
    );
  } finally {
    await pg.end().catch(() => undefined);
    await orm.close(true);
    if (!process.env.BENCH_KEEP_DB) await dropDatabase(url);
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
