/** bench:compare's rows: one result per scenario and run, their medians, and the tables printed of them. */
import type { CpuSample } from './cpu';
import { markdown } from './summary';

export interface Result {
  run: number;
  /** Which checkout's stack answered: "this", or "baseline" (BENCH_BASELINE_DIR); "-" for pgbench. */
  build: string;
  org_invoices: number | null;
  scenario: string;
  tps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  ratio: number | null;
  ratio_to: string;
  /** CPU ms per request by process group (cpu.ts); empty on the reads/writes rows of a mixed scenario. */
  cpu_ms_per_req: CpuSample;
  /** Peak MB resident during the scenario by process group (cpu.ts sampleRss); empty when not sampled. */
  rss_mb: Record<string, number>;
  /** Statements sent to Postgres per request by process (statements.ts); null when not counted. */
  stmts_per_req: Record<string, number> | null;
}

const CPU_COLS = ['gateway', 'receivables', 'payables', 'reporting', 'webhook-dispatcher', 'pg', 'pg*', 'nats', 'client'];
const CPU_SHORT: Record<string, string> = { receivables: 'recv', payables: 'pay', reporting: 'rep', 'webhook-dispatcher': 'whd', gateway: 'gw' };

const STACK_COLS = ['gateway', 'receivables', 'payables', 'reporting', 'webhook-dispatcher'];
const RSS_COLS = [...STACK_COLS, 'pg', 'nats'];
const label = (r: Result) => [r.build, r.org_invoices === null ? '-' : String(r.org_invoices), r.scenario];

export function table(rows: Result[]): string {
  const head = ['build', 'org', 'scenario', 'tps', 'p50 ms', 'p99 ms', 'errors', 'ratio', ...CPU_COLS.map((c) => `${CPU_SHORT[c] ?? c} cpu`), 'sum cpu'];
  const body = rows.map((r) => {
    const sum = CPU_COLS.filter((c) => c !== 'pg*' && c !== 'client').reduce((a, c) => a + (r.cpu_ms_per_req[c] ?? 0), 0);
    return [
      ...label(r),
      r.tps.toFixed(0),
      r.p50_ms.toFixed(1),
      r.p99_ms.toFixed(1),
      String(r.errors),
      r.ratio === null ? '' : `${r.ratio.toFixed(3)} ×${r.ratio_to}`,
      ...CPU_COLS.map((c) => (r.cpu_ms_per_req[c] === undefined ? '' : r.cpu_ms_per_req[c].toFixed(3))),
      Object.keys(r.cpu_ms_per_req).length ? sum.toFixed(3) : '',
    ];
  });
  return markdown(head, body, 3);
}

/** Peak MB resident per process during each scenario (pg: the bench database's backends summed, without shared buffers). */
export function rssTable(rows: Result[]): string {
  const head = ['build', 'org', 'scenario', ...RSS_COLS.map((c) => `${CPU_SHORT[c] ?? c} MB`), 'sum MB'];
  const body = rows
    .filter((r) => Object.keys(r.rss_mb).length)
    .map((r) => [...label(r), ...RSS_COLS.map((c) => (r.rss_mb[c] === undefined ? '' : r.rss_mb[c].toFixed(0))), RSS_COLS.reduce((a, c) => a + (r.rss_mb[c] ?? 0), 0).toFixed(0)]);
  return markdown(head, body, 3);
}

/** Statements sent to Postgres per request by process (BEGIN and COMMIT included). */
export function statementTable(rows: Result[]): string {
  const head = ['build', 'org', 'scenario', ...STACK_COLS.map((c) => `${CPU_SHORT[c] ?? c} stmts`), 'sum stmts'];
  const body = rows
    .filter((r) => r.stmts_per_req)
    .map((r) => [
      ...label(r),
      ...STACK_COLS.map((c) => (r.stmts_per_req![c] === undefined ? '' : r.stmts_per_req![c].toFixed(2))),
      STACK_COLS.reduce((a, c) => a + (r.stmts_per_req![c] ?? 0), 0).toFixed(2),
    ]);
  return markdown(head, body, 3);
}

function median(xs: number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function medians(results: Result[]): Result[] {
  const keyOf = (r: Result) => `${r.org_invoices}|${r.scenario}|${r.build}`;
  const keys = [...new Set(results.map(keyOf))];
  return keys.map((k) => {
    const rs = results.filter((r) => keyOf(r) === k);
    const first = rs[0]!;
    const byGroup = (pick: (r: Result) => Record<string, number> | null) => {
      const out: Record<string, number> = {};
      for (const c of new Set(rs.flatMap((r) => Object.keys(pick(r) ?? {})))) out[c] = median(rs.map((r) => pick(r)?.[c] ?? NaN));
      return out;
    };
    return {
      run: 0,
      build: first.build,
      org_invoices: first.org_invoices,
      scenario: first.scenario,
      tps: median(rs.map((r) => r.tps)),
      p50_ms: median(rs.map((r) => r.p50_ms)),
      p99_ms: median(rs.map((r) => r.p99_ms)),
      errors: rs.reduce((a, r) => a + r.errors, 0),
      ratio: first.ratio === null ? null : median(rs.map((r) => r.ratio ?? NaN)),
      ratio_to: first.ratio_to,
      cpu_ms_per_req: byGroup((r) => r.cpu_ms_per_req),
      rss_mb: byGroup((r) => r.rss_mb),
      stmts_per_req: first.stmts_per_req ? byGroup((r) => r.stmts_per_req) : null,
    };
  });
}
