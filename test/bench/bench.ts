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
 *   lists            BENCH_LIST_ROWS (1,000,000) customers seeded with generate_series, then GET
 *                    /customers: first page, a page 90% deep by starting_after and by ending_before
 *                    (keyset), offset 100,000, a created range and an external-id lookup; with
 *                    EXPLAIN ANALYZE of the deep keyset statement
 *   dashboard        first, on the idle stack: the dashboard's page weight and time to interactive in
 *                    Chromium, cache empty (dashboard-load.ts): the sign-in page and the overview
 *                    signed in, the median of BENCH_DASHBOARD_LOADS (5) loads each (needs the
 *                    dashboard built: `npm run build`)
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
 * BENCH_INVOICES (3000), BENCH_BILLS (200), BENCH_LIST_ROWS (1000000), BENCH_SCENARIOS (all of the above, comma-separated), BENCH_REPLICAS (1: processes of each service and gateways; 2 with BENCH_CLUSTER=1),
 * BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres: the server, not the database),
 * NATS_URL (nats://127.0.0.1:4222). Exits 1 if a scenario had a non-2xx reply, an error or a timeout.
 */
import fs from 'node:fs';
import os from 'node:os';
import { interrupt, wasInterrupted } from './drive';
import { type DashboardLoads, dashboardTable } from './dashboard-load';
import { CLUSTER, CONNECTIONS, DASHBOARD_LOADS, DURATION_S, REPLICAS } from './env';
import { type Setup, runSetup } from './setup';
import { type Row, type Summary, comparison, errorCount, processTable, summarize, table } from './summary';

async function main(): Promise<number> {
  const onSignal = (sig: NodeJS.Signals) => {
    process.stderr.write(`\n${sig}: stopping the load, then the stack\n`);
    interrupt();
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
    const results: { setup: Setup; rows: Row[]; summaries: Summary[]; dashboard?: DashboardLoads }[] = [];
    for (const setup of setups) {
      const { rows, lag, dashboard } = await runSetup(setup);
      const summaries = rows.map(summarize);
      results.push({ setup, rows, summaries, ...(dashboard ? { dashboard } : {}) });
      if (dashboard) process.stdout.write(`\n${dashboardTable(dashboard, DASHBOARD_LOADS)}\n`);
      process.stdout.write(
        `\n${setup.label}\n${table(summaries)}\n\nCPU ms per request per process (nats: ${setup.natsNodes ? 'its own server(s)' : 'every nats-server on the machine'}; pg: the bench database's backends; busy %: the whole machine)\n${processTable(summaries)}\n\n${lag}\n\n`,
      );
    }
    if (results.length > 1)
      process.stdout.write(`scale-out, ${CONNECTIONS} connections, one run:\n${results.map((r, i) => `  ${i + 1}. ${r.setup.label}`).join('\n')}\n${comparison(results)}\n\n`);
    const head = { node: process.version, cpus: os.cpus().length, connections: CONNECTIONS, duration_s: DURATION_S };
    const report = CLUSTER
      ? { ...head, setups: results.map((r) => ({ label: r.setup.label, replicas: r.setup.replicas, nats_nodes: r.setup.natsNodes, routes: r.summaries })) }
      : { ...head, routes: results[0]?.summaries ?? [], ...(results[0]?.dashboard ? { dashboard: results[0].dashboard } : {}) };
    process.stdout.write(`${JSON.stringify(report)}\n`);
    if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(
      `node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), every service of SERVICE_MANIFEST as ${setups.map((s) => s.replicas).join(' then ')} separate process(es)\n`,
    );
    let failed = wasInterrupted();
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

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
