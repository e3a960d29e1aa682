/** bench:compare's scenarios through the gateway, each with its ratio to pgbench, its CPU and memory per process and its statements per request. */
import type autocannon from 'autocannon';
import type { Stack } from '@acct/stack';
import { CLIENTS, DURATION_S, SCENARIOS } from './compare-env';
import type { Org } from './compare-org';
import type { Result } from './compare-results';
import { type CpuSample, cpuPerRequest, sampleCpu, watchRss } from './cpu';
import { drive, percentile, postEach, postToEach } from './drive';
import { COUNTER_FLUSH_MS, type StatementDelta, perRequest, readStatements, statementDelta } from './statements';

/** The stack a scenario runs on; countDir: where its processes write their statement counts (none: not counted). */
export interface Target {
  stack: Stack;
  dbName: string;
  databaseUrl: string;
  countDir?: string;
}

/** Every statement each scenario sent, summed over the runs, with its requests, by "build|org|scenario". */
export const statementsByScenario = new Map<string, { requests: number; statements: Map<string, StatementDelta> }>();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Measured {
  result: autocannon.Result;
  samples: number[];
  cpu: CpuSample;
  rss: Record<string, number>;
  /** Statements per request by process, null when not counted. */
  stmts: Record<string, number> | null;
}

/**
 * Drives the load, then `settle` (before the CPU is sampled again: what the consumers did meanwhile
 * counts), and reads the statements the processes counted (after the counters wrote them).
 */
async function measure(t: Target, key: string, opts: autocannon.Options, settle?: () => Promise<void>): Promise<Measured> {
  if (t.countDir) await sleep(COUNTER_FLUSH_MS);
  const stmtBefore = t.countDir ? readStatements(t.countDir, t.stack) : undefined;
  const rss = watchRss(t.stack, t.dbName);
  let m: Omit<Measured, 'rss' | 'stmts'>;
  let peak: Record<string, number>;
  try {
    const before = sampleCpu(t.stack, t.dbName);
    const { result, samples } = await drive(opts);
    await settle?.();
    const after = sampleCpu(t.stack, t.dbName);
    m = { result, samples, cpu: cpuPerRequest(before, after, samples.length) };
  } finally {
    peak = rss.stop();
  }
  let stmts: Record<string, number> | null = null;
  if (t.countDir && stmtBefore) {
    await sleep(COUNTER_FLUSH_MS);
    const delta = statementDelta(stmtBefore, readStatements(t.countDir, t.stack));
    stmts = { ...Object.fromEntries([...t.stack.services.keys()].map((k) => [k, 0])), ...perRequest(delta, m.samples.length) };
    const acc = statementsByScenario.get(key) ?? { requests: 0, statements: new Map<string, StatementDelta>() };
    acc.requests += m.samples.length;
    for (const d of delta) {
      const k = `${d.group}\t${d.text}`;
      const prev = acc.statements.get(k);
      acc.statements.set(k, prev ? { ...prev, n: prev.n + d.n, ms: prev.ms + d.ms } : d);
    }
    statementsByScenario.set(key, acc);
  }
  return { ...m, rss: peak, stmts };
}

async function scenario(t: Target, runNo: number, org: Org | null, name: string, ratioTo: { mode: string; tps: number } | null, opts: autocannon.Options): Promise<Result> {
  const m = await measure(t, `${org?.build ?? '-'}|${org?.invoices ?? '-'}|${name}`, opts);
  const sorted = [...m.samples].sort((a, b) => a - b);
  const tps = (m.samples.length * 1000) / Math.max(1, m.result.duration * 1000);
  return {
    run: runNo,
    build: org?.build ?? '-',
    org_invoices: org?.invoices ?? null,
    scenario: name,
    tps,
    p50_ms: percentile(sorted, 50),
    p99_ms: percentile(sorted, 99),
    errors: m.result.non2xx + m.result.errors + m.result.timeouts,
    ratio: ratioTo ? tps / ratioTo.tps : null,
    ratio_to: ratioTo?.mode ?? '',
    cpu_ms_per_req: m.cpu,
    rss_mb: m.rss,
    stmts_per_req: m.stmts,
  };
}

export async function orgScenarios(t: Target, runNo: number, org: Org, n: { '-N': number; '-S': number }, tag: string): Promise<Result[]> {
  const url = t.stack.gatewayUrl;
  const out: Result[] = [];
  const N = { mode: 'N', tps: n['-N'] };
  /** What every scenario's load has in common. */
  const load = { url, connections: CLIENTS, headers: org.headers };
  if (SCENARIOS.has('get-invoice')) {
    let reads = 0;
    out.push(
      await scenario(
        t,
        runNo,
        org,
        'get-invoice',
        { mode: 'S', tps: n['-S'] },
        {
          ...load,
          duration: DURATION_S,
          requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, method: 'GET', path: `/api/v1/invoices/${org.readIds[reads++ % org.readIds.length]}` }) }],
        },
      ),
    );
  }
  if (SCENARIOS.has('create-invoice')) {
    const invoice = (k: number) => ({
      external_invoice_id: `b-${tag}-${k}`,
      customer_id: org.customerId,
      invoice_number: `B-${k}`,
      issue_date: '2026-11-01',
      due_date: '2026-12-01',
      line_items: [{ description: 'Bench work', quantity: 1.25, unit_amount_cents: 10_000 + k }],
    });
    out.push(await scenario(t, runNo, org, 'create-invoice', N, { ...load, duration: DURATION_S, requests: postEach('/api/v1/invoices', invoice) }));
  }
  if (SCENARIOS.has('post-invoice')) {
    const requests = postToEach(org.drafts, (d) => `/api/v1/invoices/${d}/post`);
    out.push(await scenario(t, runNo, org, 'post-invoice', N, { ...load, amount: org.drafts.length, requests }));
  }
  const bill = (b: number) => ({
    external_bill_id: `b-${tag}-${b}`,
    vendor_id: org.vendorId,
    bill_number: `VB-${b}`,
    issue_date: '2026-11-01',
    due_date: '2026-12-01',
    line_items: [{ description: 'Bench supplies', quantity: 1, unit_amount_cents: 10_000 + b }],
  });
  if (SCENARIOS.has('create-bill')) {
    out.push(await scenario(t, runNo, org, 'create-bill', N, { ...load, duration: DURATION_S, requests: postEach('/api/v1/bills', bill) }));
  }
  return out;
}
