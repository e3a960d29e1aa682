/** `npm run bench:compare`'s settings from the environment (compare.ts describes each). */
import { envInt } from './drive';

export const CLIENTS = envInt('BENCH_CLIENTS', 16, 1);
export const DURATION_S = envInt('BENCH_DURATION_S', 10, 1);
export const PGBENCH_S = envInt('BENCH_PGBENCH_S', 12, 1);
export const RUNS = envInt('BENCH_RUNS', 3, 1);
export const POST_INVOICES = envInt('BENCH_POST_INVOICES', 3000, 1);
/** Requests per second over all connections (0: as fast as they go). */
export const RATE = envInt('BENCH_RATE', 0, 0);
export const ORG_SIZES = (process.env.BENCH_ORG_SIZES ?? '1000,100000').split(',').map((x) => {
  const n = Number(x.trim());
  if (!Number.isInteger(n) || n < 1) throw new Error(`BENCH_ORG_SIZES: bad size "${x}"`);
  return n;
});
export const SCENARIOS = new Set((process.env.BENCH_SCENARIOS ?? 'get-invoice,create-invoice,post-invoice,create-bill,mixed').split(',').map((x) => x.trim()));
/** Count each process's statements (pg-count.ts preloaded into the stack's processes); BENCH_STATEMENTS=0: not. */
export const COUNT_STATEMENTS = process.env.BENCH_STATEMENTS !== '0';
export const PG_SERVER_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
export const STALE_STATS = (process.env.BENCH_STATS ?? 'stale') !== 'fresh';
export const PGBENCH = process.env.PGBENCH ?? '/usr/lib/postgresql/15/bin/pgbench';
