/** bench:compare's scenarios through the gateway, each with its ratio to pgbench, its CPU and memory per process and its statements per request. */
import type autocannon from 'autocannon';
import type { Stack } from '@acct/stack';
import { CLIENTS, DURATION_S, RATE, SCENARIOS } from './compare-env';
import type { Org } from './compare-org';
import type { Result } from './compare-results';
import { type CpuSample, cpuPerRequest, sampleCpu, watchRss } from './cpu';
import { drive, percentile, postEach, postToEach } from './drive';
import { reportingLag } from './lag';
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
  /** From the start to the last response (drive.ts). */
  seconds: number;
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
    const { result, samples, seconds } = await drive(opts);
    await settle?.();
    const after = sampleCpu(t.stack, t.dbName);
    m = { result, samples, seconds, cpu: cpuPerRequest(before, after, samples.length) };
  } finally {
    peak = rss.stop();
  }
  let stmts: Record<string, number> | null = null;
  if (t.countDir && stmtBefore) {
    await sleep(COUNTER_FLUSH_MS);
    const stmtAfter = readStatements(t.countDir, t.stack);
    // No counts at all: this stack's processes did not preload the counter (a checkout without STACK_NODE_ARGS).
    if (!stmtAfter.size) return { ...m, rss: peak, stmts: null };
    const delta = statementDelta(stmtBefore, stmtAfter);
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
  const tps = m.samples.length / Math.max(0.001, m.seconds);
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
  // BENCH_RATE: every build at the same rate, so that their CPU per request compares (it falls as
  // the rate rises: fewer, fuller writes).
  const load = { url, connections: CLIENTS, headers: org.headers, ...(RATE ? { overallRate: RATE } : {}) };
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
  const bill = (b: number, prefix = '') => ({
    external_bill_id: `b-${tag}-${prefix}${b}`,
    vendor_id: org.vendorId,
    bill_number: `VB-${prefix}${b}`,
    issue_date: '2026-11-01',
    due_date: '2026-12-01',
    line_items: [{ description: 'Bench supplies', quantity: 1, unit_amount_cents: 10_000 + b }],
  });
  if (SCENARIOS.has('create-bill')) {
    out.push(await scenario(t, runNo, org, 'create-bill', N, { ...load, duration: DURATION_S, requests: postEach('/api/v1/bills', bill) }));
  }
  if (SCENARIOS.has('mixed')) out.push(...(await mixed(t, runNo, org, n, (b) => bill(b, 'm-'))));
  return out;
}

/**
 * mixed: every connection sends, in turn, 8 reads (GET an invoice ×4, GET a bill ×3, the first page
 * of the invoice list) and 2 writes (create a bill, posted on create; post an invoice draft, or
 * create a bill once the organization's drafts for it ran out) for BENCH_DURATION_S, while the
 * consumers (reporting, webhook-dispatcher) apply what the writes emitted. The scenario ends when
 * reporting holds every journal entry the writes made (at most 2 minutes: the lag line tells), so
 * its CPU per request includes the consumers' catching up. Rows: "mixed" (all requests: CPU, memory
 * and statements per request), "mixed reads" and "mixed writes" (their own rate and latency).
 */
async function mixed(t: Target, runNo: number, org: Org, n: { '-N': number; '-S': number }, bill: (b: number) => unknown): Promise<Result[]> {
  const kinds: ('read' | 'write')[] = [];
  const failed = { read: 0, write: 0 };
  /** Ids of the records the writes made or posted: their journal entries are the ones reporting must apply. */
  const sources: string[] = [];
  /** Drafts taken and bills numbered so far (requests sent), and the writes that succeeded. */
  let posts = 0;
  let bills = 0;
  let postedOk = 0;
  let billsOk = 0;
  let next = 0;
  const pick = (ids: string[]) => ids[next++ % ids.length]!;
  /** The request without a body (a request object may be autocannon's own, shared by the connections). */
  const bare = ({ body: _body, ...req }: autocannon.RequestParams) => req;
  const read = (path: () => string): autocannon.Request => ({
    method: 'GET',
    setupRequest: (req) => ({ ...bare(req), method: 'GET', path: path() }),
    onResponse: (status) => {
      kinds.push('read');
      if (status >= 300) failed.read++;
    },
  });
  /** Per connection (autocannon's context): which write the request in flight is, and of which record. */
  type Ctx = { write?: 'post' | 'bill'; id?: string };
  const onWrite = (status: number, body: string, context: Ctx) => {
    kinds.push('write');
    if (status >= 300) {
      failed.write++;
    } else if (context.write === 'post' && context.id) {
      sources.push(context.id);
      postedOk++;
    } else if (context.write === 'bill') {
      sources.push((JSON.parse(body) as { data: { id: string } }).data.id);
      billsOk++;
    }
  };
  const createBill = (req: autocannon.RequestParams, context: Ctx): autocannon.RequestParams => {
    context.write = 'bill';
    return { ...req, method: 'POST', path: '/api/v1/bills', body: JSON.stringify(bill(++bills)) };
  };
  const write = (setup: (req: autocannon.RequestParams, context: Ctx) => autocannon.RequestParams): autocannon.Request => ({
    method: 'POST',
    setupRequest: (req, context) => setup(req, context),
    onResponse: (status, body, context) => onWrite(status, body, context),
  });
  const postOrBill = (req: autocannon.RequestParams, context: Ctx): autocannon.RequestParams => {
    if (posts >= org.mixedDrafts.length) return createBill(req, context);
    const id = org.mixedDrafts[posts++]!;
    context.write = 'post';
    context.id = id;
    return { ...bare(req), method: 'POST', path: `/api/v1/invoices/${id}/post` };
  };
  const getInvoice = read(() => `/api/v1/invoices/${pick(org.readIds)}`);
  const getBill = read(() => `/api/v1/bills/${pick(org.billReadIds)}`);
  const requests = [getInvoice, getBill, getInvoice, write(createBill), getInvoice, getBill, read(() => '/api/v1/invoices?limit=20'), getInvoice, getBill, write(postOrBill)];
  let settled = '';
  const settle = async () => {
    const t0 = Date.now();
    const lag = await reportingLag(t.databaseUrl, org.organizationId, { sourceIds: sources, waitMs: 120_000 });
    settled = `reporting done ${Date.now() - t0} ms after the load; ${lag}`;
  };
  const m = await measure(t, `${org.build}|${org.invoices}|mixed`, { url: t.stack.gatewayUrl, connections: CLIENTS, headers: org.headers, duration: DURATION_S, requests }, settle);
  process.stdout.write(`mixed (${org.build}, ${org.invoices}): ${postedOk} invoices posted, ${billsOk} bills created; ${settled}\n`);
  if (kinds.length !== m.samples.length) process.stderr.write(`mixed: ${kinds.length} responses classified, ${m.samples.length} measured: the reads/writes rows are off\n`);
  const seconds = Math.max(0.001, m.seconds);
  const row = (scenario: string, samples: number[], errors: number, ratioTo: { mode: string; tps: number } | null, whole: boolean): Result => {
    const sorted = [...samples].sort((a, b) => a - b);
    const tps = samples.length / seconds;
    return {
      run: runNo,
      build: org.build,
      org_invoices: org.invoices,
      scenario,
      tps,
      p50_ms: percentile(sorted, 50),
      p99_ms: percentile(sorted, 99),
      errors,
      ratio: ratioTo ? tps / ratioTo.tps : null,
      ratio_to: ratioTo?.mode ?? '',
      cpu_ms_per_req: whole ? m.cpu : {},
      rss_mb: whole ? m.rss : {},
      stmts_per_req: whole ? m.stmts : null,
    };
  };
  const of = (k: 'read' | 'write') => m.samples.filter((_, i) => kinds[i] === k);
  return [
    row('mixed', m.samples, m.result.non2xx + m.result.errors + m.result.timeouts, null, true),
    row('mixed reads', of('read'), failed.read, { mode: 'S', tps: n['-S'] }, false),
    row('mixed writes', of('write'), failed.write, { mode: 'N', tps: n['-N'] }, false),
  ];
}
