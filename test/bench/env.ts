/** `npm run bench`'s settings from the environment (bench.ts describes each). */
import { envInt } from './drive';

export const CONNECTIONS = envInt('BENCH_CONNECTIONS', 20, 1);
export const DURATION_S = envInt('BENCH_DURATION_S', 10, 1);
export const WARMUP_S = envInt('BENCH_WARMUP_S', 2, 0);
export const INVOICES = envInt('BENCH_INVOICES', 3000, 1);
export const LAG_RATE = envInt('BENCH_LAG_RATE', 100, 1);
export const BILLS = envInt('BENCH_BILLS', 200, 1);
export const REPORT_LINES = envInt('BENCH_REPORT_LINES', 1_000_000, 2);
export const LIST_ROWS = envInt('BENCH_LIST_ROWS', 1_000_000, 10);
/** Loads of each dashboard page (cache empty) whose median the dashboard scenario prints. */
export const DASHBOARD_LOADS = envInt('BENCH_DASHBOARD_LOADS', 5, 1);
/** One replica on one NATS node, then BENCH_REPLICAS on a 3-node NATS cluster, in one run. */
export const CLUSTER = process.env.BENCH_CLUSTER === '1';
/** Processes of every service and gateways (behind the stack's round-robin balancer). */
export const REPLICAS = envInt('BENCH_REPLICAS', CLUSTER ? 2 : 1, 1);
const WRITE_SCENARIOS = 'get-customer,create-customer,post-invoice,post-invoice-paced,event-api,stripe-hook,create-bill,create-vendor-payment';
export const SCENARIOS = new Set((process.env.BENCH_SCENARIOS ?? (CLUSTER ? WRITE_SCENARIOS : `dashboard,${WRITE_SCENARIOS},reports,lists`)).split(',').map((x) => x.trim()));
export const PG_SERVER_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
