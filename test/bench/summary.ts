/** The bench's figures: one summary per scenario, and the Markdown tables printed of them. */
import type autocannon from 'autocannon';
import type { CpuSample } from './cpu';
import { percentile } from './drive';
import type { Setup } from './setup';

export interface Row {
  scenario: string;
  /** Method and route template of the scenario's requests. */
  route: string;
  result: autocannon.Result;
  /** Latency of every measured response, ms (autocannon reports no p95). */
  samples: number[];
  /** From the start to the last response (drive.ts). */
  seconds: number;
  /** CPU ms per request during the scenario by process group (cpu.ts), null when not sampled. */
  cpu: CpuSample | null;
  /** Share of the whole machine's CPU time that was busy during the scenario (null without /proc). */
  busy: number | null;
}

export interface Summary {
  scenario: string;
  route: string;
  requests: number;
  requests_per_s: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  /** CPU ms of the gateway and service processes per request (null without /proc). */
  cpu_ms_per_request: number | null;
  /** CPU ms per request of each process (`gateway`, `gateway#1`, ...), nats and pg (the bench database's backends). */
  cpu_ms_per_request_by_process: CpuSample | null;
  /** Percent of the machine's CPU time busy during the scenario (every process, others' too). */
  machine_busy_pct: number | null;
  non_2xx: number;
  errors: number;
}

/** Groups of cpu.ts that are not the stack's own processes. */
const NOT_STACK = new Set(['nats', 'pg', 'pg*', 'client']);

export function summarize({ scenario, route, result: r, samples, seconds, cpu, busy }: Row): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 100) / 100;
  const requests = r['1xx'] + r['2xx'] + r['3xx'] + r['4xx'] + r['5xx'];
  return {
    scenario,
    route,
    requests,
    requests_per_s: round(samples.length / Math.max(0.001, seconds)),
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    p99_ms: round(percentile(sorted, 99)),
    cpu_ms_per_request: cpu === null ? null : round(sum(Object.entries(cpu).filter(([g]) => !NOT_STACK.has(g)))),
    cpu_ms_per_request_by_process: cpu && Object.fromEntries(Object.entries(cpu).map(([g, ms]) => [g, round(ms)])),
    machine_busy_pct: busy === null ? null : Math.round(busy * 100),
    non_2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

function sum(entries: [string, number][]): number {
  return entries.reduce((a, [, ms]) => a + ms, 0);
}

export function errorCount(r: autocannon.Result): number {
  return r.non2xx + r.errors + r.timeouts;
}

/** A Markdown table: the first `leftCols` columns left-aligned, the others right-aligned. */
export function markdown(head: string[], body: string[][], leftCols: number): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const left = (i: number) => i < leftCols;
  const line = (cells: string[]) => `| ${cells.map((c, i) => (left(i) ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  return [line(head), `|${widths.map((w, i) => (left(i) ? ':' : '-') + '-'.repeat(w) + (left(i) ? '-' : ':')).join('|')}|`, ...body.map(line)].join('\n');
}

/** Processes in a stable order: each service of the manifest's order with its replicas, then nats and pg. */
function processColumns(rows: Summary[]): string[] {
  const seen = new Set(rows.flatMap((r) => Object.keys(r.cpu_ms_per_request_by_process ?? {})));
  const stack = [...seen].filter((g) => !NOT_STACK.has(g)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return [...stack, ...['nats', 'pg'].filter((g) => seen.has(g))];
}

/** CPU ms per request of every process, one row per scenario. */
export function processTable(rows: Summary[]): string {
  const cols = processColumns(rows);
  const body = rows.map((r) => [
    r.scenario,
    ...cols.map((c) => r.cpu_ms_per_request_by_process?.[c]?.toFixed(2) ?? '-'),
    r.machine_busy_pct === null ? '-' : String(r.machine_busy_pct),
  ]);
  return markdown(['scenario', ...cols, 'busy %'], body, 1);
}

export function table(rows: Summary[]): string {
  const head = ['route', 'scenario', 'requests/s', 'p50 ms', 'p95 ms', 'p99 ms', 'CPU ms/req', 'non-2xx', 'errors+timeouts', 'requests'];
  const body = rows.map((r) => [
    r.route,
    r.scenario,
    r.requests_per_s.toFixed(1),
    String(r.p50_ms),
    String(r.p95_ms),
    String(r.p99_ms),
    r.cpu_ms_per_request === null ? '-' : String(r.cpu_ms_per_request),
    String(r.non_2xx),
    String(r.errors),
    String(r.requests),
  ]);
  return markdown(head, body, 2);
}

/** Requests/s, p99 and CPU per request of each setup side by side, one row per scenario. */
export function comparison(setups: { setup: Setup; summaries: Summary[] }[]): string {
  const [base, ...others] = setups;
  if (!base) return '';
  const head = ['scenario'];
  for (const { setup } of setups) head.push(`req/s ${setup.replicas}×`);
  for (const { setup } of others) head.push(`× ${setup.replicas}/${base.setup.replicas}`);
  for (const { setup } of setups) head.push(`p99 ms ${setup.replicas}×`);
  for (const { setup } of setups) head.push(`CPU ms/req ${setup.replicas}×`, `nats ${setup.replicas}×`, `pg ${setup.replicas}×`, `busy % ${setup.replicas}×`);
  const body = base.summaries.map((b) => {
    const rows = setups.map(({ summaries }) => summaries.find((r) => r.scenario === b.scenario));
    const cells = [b.scenario];
    for (const r of rows) cells.push(r ? r.requests_per_s.toFixed(0) : '-');
    for (const r of rows.slice(1)) cells.push(r && b.requests_per_s ? (r.requests_per_s / b.requests_per_s).toFixed(2) : '-');
    for (const r of rows) cells.push(r ? String(r.p99_ms) : '-');
    for (const r of rows) {
      const by = r?.cpu_ms_per_request_by_process;
      cells.push(
        r?.cpu_ms_per_request?.toFixed(2) ?? '-',
        by?.nats?.toFixed(2) ?? '-',
        by?.pg?.toFixed(2) ?? '-',
        r?.machine_busy_pct === null || !r ? '-' : String(r.machine_busy_pct),
      );
    }
    return cells;
  });
  return markdown(head, body, 1);
}
