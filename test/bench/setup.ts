/** One pass of `npm run bench`: a stack of a setup's shape started, the scenarios run on it, stopped. */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NatsCluster, adminCli, freePort, startOwnNats, startStack, type Stack } from '@acct/stack';
import { dropDatabase, dropEventsStream } from '@acct/kit';
import { sampleCpu } from './cpu';
import { type DashboardLoads, dashboardScenario } from './dashboard-load';
import { sampleWith, wasInterrupted } from './drive';
import { DASHBOARD_LOADS, NATS_URL, PG_SERVER_URL, SCENARIOS } from './env';
import { type Target, customerScenarios, inboundEventScenarios, invoicePostingScenarios, lagReport, listScenarios, payablesScenarios, reportScenarios } from './scenarios';
import { type Row, errorCount } from './summary';

/** What one pass of the scenarios runs on. */
export interface Setup {
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
export async function runSetup(setup: Setup): Promise<{ rows: Row[]; lag: string; dashboard?: DashboardLoads }> {
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
    sampleWith(() => sampleCpu(running, dbName, nats?.pids()));

    const boot = await adminCli<{ test_key: string; organization_id: string }>(databaseUrl, 'bootstrap', '--name', 'Bench organization', '--json');
    const key = boot.test_key;

    const url = stack.gatewayUrl;
    // First, on the idle stack: the dashboard's page weight and time to interactive in Chromium.
    const dashboard = SCENARIOS.has('dashboard') ? await dashboardScenario(url, databaseUrl, boot.organization_id, key, DASHBOARD_LOADS) : undefined;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' };

    const seed = await fetch(`${url}/api/v1/customers`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ external_customer_id: `bench-seed-${id}`, name: 'Bench seed customer', email: 'seed@example.com' }),
    });
    if (seed.status !== 201) throw new Error(`creating the seed customer failed: ${seed.status} ${await seed.text()}`);
    const customerId = ((await seed.json()) as { customer: { id: string } }).customer.id;

    const target: Target = { url, headers, id, databaseUrl, organizationId: boot.organization_id, customerId };
    const rows: Row[] = [];
    await customerScenarios(target, rows);
    const lags = await invoicePostingScenarios(target, rows);
    await inboundEventScenarios(target, rows);
    await reportScenarios(target, rows);
    await listScenarios(target, rows);
    await payablesScenarios(target, rows);
    const lag = await lagReport(target, lags);
    failed = wasInterrupted() || rows.some((r) => errorCount(r.result) > 0);
    return { rows, lag, ...(dashboard ? { dashboard } : {}) };
  } finally {
    sampleWith(undefined);
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
}
