/** pgbench on the same Postgres: the yardstick the routes of bench:compare are measured against. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Stack } from '@acct/stack';
import { CLIENTS, PGBENCH, PGBENCH_S, PG_SERVER_URL } from './compare-env';
import type { Result } from './compare-results';
import { type CpuSample, cpuPerRequest, sampleCpu } from './cpu';
import { percentile } from './drive';

export const run = promisify(execFile);

export async function pgbench(stack: Stack | undefined, pgbDb: string, mode: '-N' | '-S', runNo: number): Promise<Result> {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-pgbench-'));
  const u = new URL(PG_SERVER_URL);
  const before = sampleCpu(stack, pgbDb);
  const { stdout } = await run(
    PGBENCH,
    [
      mode,
      '-n',
      '-c',
      String(CLIENTS),
      '-j',
      '2',
      '-T',
      String(PGBENCH_S),
      '-l',
      '--log-prefix',
      path.join(logDir, 'tx'),
      '-h',
      u.hostname,
      '-p',
      u.port || '5432',
      '-U',
      decodeURIComponent(u.username || 'postgres'),
      pgbDb,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const after = sampleCpu(stack, pgbDb);
  const lat: number[] = [];
  for (const f of fs.readdirSync(logDir)) {
    for (const l of fs.readFileSync(path.join(logDir, f), 'utf8').split('\n')) {
      const us = Number(l.split(' ')[2]);
      if (l && Number.isFinite(us)) lat.push(us / 1000);
    }
  }
  fs.rmSync(logDir, { recursive: true, force: true });
  lat.sort((a, b) => a - b);
  const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? NaN);
  const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
  const cpu = cpuPerRequest(before, after, lat.length);
  // Only Postgres works for pgbench: keep the columns that mean something.
  const keep: CpuSample = { pg: cpu.pg ?? NaN, 'pg*': cpu['pg*'] ?? NaN };
  return {
    run: runNo,
    build: '-',
    org_invoices: null,
    scenario: `pgbench ${mode}`,
    tps,
    p50_ms: percentile(lat, 50),
    p99_ms: percentile(lat, 99),
    errors: failed,
    ratio: null,
    ratio_to: '',
    cpu_ms_per_req: keep,
    rss_mb: {},
    stmts_per_req: null,
  };
}
