/** bench:compare's scenarios through the gateway, each with its ratio to pgbench and its CPU per request. */
import type autocannon from 'autocannon';
import type { Stack } from '@acct/stack';
import { CLIENTS, DURATION_S, RATE, SCENARIOS } from './compare-env';
import type { Org } from './compare-org';
import type { Result } from './compare-results';
import { cpuPerRequest, sampleCpu } from './cpu';
import { drive, percentile, postEach, postToEach } from './drive';

async function scenario(
  stack: Stack,
  dbName: string,
  runNo: number,
  org: Org | null,
  name: string,
  ratioTo: { mode: string; tps: number } | null,
  opts: autocannon.Options,
): Promise<Result> {
  const before = sampleCpu(stack, dbName);
  const { result, samples } = await drive(opts);
  const after = sampleCpu(stack, dbName);
  const sorted = [...samples].sort((a, b) => a - b);
  const tps = (samples.length * 1000) / Math.max(1, result.duration * 1000);
  return {
    run: runNo,
    build: org?.build ?? '-',
    org_invoices: org?.invoices ?? null,
    scenario: name,
    tps,
    p50_ms: percentile(sorted, 50),
    p99_ms: percentile(sorted, 99),
    errors: result.non2xx + result.errors + result.timeouts,
    ratio: ratioTo ? tps / ratioTo.tps : null,
    ratio_to: ratioTo?.mode ?? '',
    cpu_ms_per_req: cpuPerRequest(before, after, samples.length),
  };
}

export async function orgScenarios(stack: Stack, dbName: string, runNo: number, org: Org, n: { '-N': number; '-S': number }, tag: string): Promise<Result[]> {
  const url = stack.gatewayUrl;
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
        stack,
        dbName,
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
    out.push(await scenario(stack, dbName, runNo, org, 'create-invoice', N, { ...load, duration: DURATION_S, requests: postEach('/api/v1/invoices', invoice) }));
  }
  if (SCENARIOS.has('post-invoice')) {
    const requests = postToEach(org.drafts, (d) => `/api/v1/invoices/${d}/post`);
    out.push(await scenario(stack, dbName, runNo, org, 'post-invoice', N, { ...load, amount: org.drafts.length, requests }));
  }
  if (SCENARIOS.has('create-bill')) {
    const bill = (b: number) => ({
      external_bill_id: `b-${tag}-${b}`,
      vendor_id: org.vendorId,
      bill_number: `VB-${b}`,
      issue_date: '2026-11-01',
      due_date: '2026-12-01',
      line_items: [{ description: 'Bench supplies', quantity: 1, unit_amount_cents: 10_000 + b }],
    });
    out.push(await scenario(stack, dbName, runNo, org, 'create-bill', N, { ...load, duration: DURATION_S, requests: postEach('/api/v1/bills', bill) }));
  }
  return out;
}
