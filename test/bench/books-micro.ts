/**
 * Micro-bench of libs/posting Books (not part of bench:compare): BOOKS_CLIENTS (16) concurrent
 * clients of ONE organization post drafts through transactGrouped with a set-based batch (a draft
 * row marked, then a journal entry, an outbox row and the publish), BOOKS_POSTS (2000) in all,
 * BOOKS_RUNS (5) times. Prints posts/s and CPU ms per post of this process and of the bench
 * database's Postgres backends, medians over the runs.
 */
import { randomUUID } from 'node:crypto';
import { Migration } from '@mikro-orm/migrations';
import { connect } from 'nats';
import pg from 'pg';
import { type TrustedContext, eventsStreamName } from '@acct/contracts';
import { Outbox, ensureEventsStream, migrate, openOrm, statement, scopeOf, type Scope } from '@acct/kit';
import { ACCOUNT } from '@acct/ledger';
import { Books, scopeLocks, withPostingMigrations } from '@acct/posting';
import pino from 'pino';
import { cpuMs } from './cpu';

const CLIENTS = Number(process.env.BOOKS_CLIENTS ?? 16);
const POSTS = Number(process.env.BOOKS_POSTS ?? 2000);
const RUNS = Number(process.env.BOOKS_RUNS ?? 5);
const SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';

class Drafts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`CREATE TABLE drafts (id uuid PRIMARY KEY, organization_id uuid NOT NULL, environment text NOT NULL, status text NOT NULL)`);
  }
}

type Item = { scope: Scope; arg: string };
const MARK = statement(
  'bench_mark',
  `WITH ${scopeLocks.cte} UPDATE drafts d SET status = 'open' FROM unnest(?::uuid[]) AS k (id) WHERE d.id = k.id AND d.status = 'draft' RETURNING d.id, ${scopeLocks.returning('d')}`,
);
/** BOOKS_TWO=1: the batch as receivables' invoice post makes it (the drafts locked and read, then marked with statuses computed in TS). */
const TWO_STATEMENTS = process.env.BOOKS_TWO === '1';
const LOCK = statement(
  'bench_lock',
  `WITH ${scopeLocks.cte} SELECT d.id, d.organization_id, d.environment, ${scopeLocks.returning('d')} FROM drafts d JOIN unnest(?::uuid[]) AS k (id) ON d.id = k.id WHERE d.status = 'draft' FOR UPDATE OF d`,
);
const SET = statement('bench_set', `UPDATE drafts d SET status = k.status FROM unnest(?::uuid[], ?::text[]) AS k (id, status) WHERE d.id = k.id`);
async function lockThenMark(q: (s: unknown, v: unknown[]) => Promise<Record<string, unknown>[]>, items: readonly Item[]) {
  const rows = await q(LOCK, [...scopeLocks.params(items.map((i) => i.scope)), items.map((i) => i.arg)]);
  if (rows.length) await q(SET, [rows.map((r) => r.id), rows.map(() => 'open')]);
  return rows;
}
const MARK_ONE = statement('bench_mark_one', `UPDATE drafts SET status = 'open' WHERE id = ? AND status = 'draft'`);
// The batch of a draft's post (the before-run of this bench also had the one-statement `read`).
const batch = {
  async run({ sql, lock }: { sql: never; lock: never }, items: readonly Item[]) {
    const q = sql as unknown as (s: unknown, v: unknown[]) => Promise<Record<string, unknown>[]>;
    const rows = TWO_STATEMENTS ? await lockThenMark(q, items) : await q(MARK, [...scopeLocks.params(items.map((i) => i.scope)), items.map((i) => i.arg)]);
    scopeLocks.prime(lock, rows);
    const ids = new Set(rows.map((r) => String(r.id)));
    return items.map((i) => (ids.has(i.arg) ? true : null));
  },
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const dbName = `acct_books_bench_${process.pid}`;
  const admin = new pg.Client(SERVER);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = SERVER.replace(/\/postgres$/, `/${dbName}`);
  const orm = await openOrm({ url, schema: 'bench', entities: [], migrations: withPostingMigrations([{ name: 'Drafts', class: Drafts }]), poolMax: 8 });
  const nc = await connect({ servers: 'nats://127.0.0.1:4222' });
  const prefix = `bench-${process.pid}`;
  const jsm = await ensureEventsStream(nc, prefix);
  try {
    await migrate(orm);
    const books = new Books(orm, new Outbox(nc, orm, pino({ level: 'silent' })), prefix, 'receivables');
    const ctx: TrustedContext = { organizationId: randomUUID(), connectedAppId: randomUUID(), environment: 'test', apiKeyId: randomUUID(), requestId: randomUUID() };
    const scope = scopeOf(ctx);
    const post = (id: string) =>
      books.transactGrouped(
        ctx,
        async (tx, marked?: true | null) => {
          // Not marked by a batch (a work alone before the one write path): its own one-row UPDATE.
          if (marked === undefined) await tx.sql(MARK_ONE, [id]);
          return tx.post(
            {
              entryDate: '2026-11-01',
              sourceType: 'invoice',
              sourceId: id,
              lines: [
                { accountCode: ACCOUNT.receivable, side: 'debit', amountCents: 100 },
                { accountCode: ACCOUNT.revenue, side: 'credit', amountCents: 100 },
              ],
            },
            { type: 'invoice', invoice: { id } } as never,
          );
        },
        { kind: batch as never, arg: id as never },
      );
    const seed = async (n: number) => {
      const ids = Array.from({ length: n }, () => randomUUID());
      await orm.em.getConnection().execute(`INSERT INTO drafts SELECT unnest(?::uuid[]), ?, ?, 'draft'`, [`{${ids.join(',')}}`, scope.organizationId, scope.environment]);
      return ids;
    };
    for (const id of await seed(50)) await post(id); // warm-up: chart, chain head, prepared statements
    const rates: number[] = [];
    const nodeCpu: number[] = [];
    const pgCpu: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const ids = await seed(POSTS);
      const pids = (await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1`, [dbName])).rows.map((r) => r.pid);
      const pg0 = pids.reduce((s, p) => s + cpuMs(p), 0);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next < ids.length) await post(ids[next++]!);
        }),
      );
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      const pg1 = pids.reduce((s, p) => s + cpuMs(p), 0);
      rates.push((POSTS * 1000) / ms);
      nodeCpu.push((c.user + c.system) / 1000 / POSTS);
      pgCpu.push((pg1 - pg0) / POSTS);
      process.stdout.write(`run ${run + 1}: ${rates.at(-1)!.toFixed(0)} posts/s, node ${nodeCpu.at(-1)!.toFixed(3)} ms/post, pg ${pgCpu.at(-1)!.toFixed(3)} ms/post\n`);
    }
    process.stdout.write(
      `median of ${RUNS} (${CLIENTS} clients, ${POSTS} posts): ${median(rates).toFixed(0)} posts/s, node ${median(nodeCpu).toFixed(3)} ms CPU/post, pg ${median(pgCpu).toFixed(3)} ms CPU/post\n`,
    );
  } finally {
    await jsm.streams.delete(eventsStreamName(prefix)).catch(() => undefined);
    await nc.close();
    await orm.close(true);
    await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
