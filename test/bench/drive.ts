/**
 * The load driver the benches share: autocannon with every response's latency kept (autocannon
 * reports no p95) and the CPU of the stack's processes sampled around each run (cpu.ts).
 */
import autocannon from 'autocannon';
import { type CpuSample, type CpuSnapshot, cpuPerRequest, machineTicks } from './cpu';

/** An integer from the environment (def when unset), at least min. */
export function envInt(name: string, def: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Samples the CPU of the running stack's processes, its NATS and its database's backends. */
let sampler: (() => CpuSnapshot) | undefined;
let current: autocannon.Instance | undefined;
let interrupted = false;

/** What drive() samples the CPU with from now on (undefined: no CPU figures). */
export function sampleWith(next: (() => CpuSnapshot) | undefined): void {
  sampler = next;
}

/** Stops the load running now and refuses any further drive() (SIGINT, SIGTERM). */
export function interrupt(): void {
  interrupted = true;
  current?.stop();
}

export function wasInterrupted(): boolean {
  return interrupted;
}

/**
 * What one drive() measured. `seconds` runs from the start to the last response: autocannon's own
 * result.duration ends at its next 1 s tick after the last response, so a run of a fixed amount of
 * requests (post-invoice: each seeded draft once) would count 3,000 posts done in 4.1 s as done in 5.
 */
export interface Driven {
  result: autocannon.Result;
  samples: number[];
  seconds: number;
  cpu: CpuSample | null;
  busy: number | null;
}

export async function drive(opts: autocannon.Options): Promise<Driven> {
  if (interrupted) throw new Error('interrupted');
  const samples: number[] = [];
  const cpuBefore = sampler?.();
  const ticksBefore = machineTicks();
  const started = performance.now();
  let lastResponse = started;
  const instance = autocannon(opts);
  // 'response' gives (client, statusCode, resBytes, responseTime ms).
  instance.on('response', (...args: unknown[]) => {
    samples.push(Number(args[3]));
    lastResponse = performance.now();
  });
  current = instance;
  try {
    const result = await instance;
    const cpuAfter = sampler?.();
    const ticksAfter = machineTicks();
    const busy = ticksBefore && ticksAfter && ticksAfter.total > ticksBefore.total ? (ticksAfter.busy - ticksBefore.busy) / (ticksAfter.total - ticksBefore.total) : null;
    const seconds = samples.length > 0 ? (lastResponse - started) / 1000 : result.duration;
    return { result, samples, seconds, cpu: cpuBefore && cpuAfter ? cpuPerRequest(cpuBefore, cpuAfter, samples.length) : null, busy };
  } finally {
    current = undefined;
  }
}

/** One POST that must answer 201; returns the new record's id. */
export async function createOne(url: string, headers: Record<string, string>, body: unknown): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`POST ${url} failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

/** autocannon's requests: POST `path` with a new JSON body each time, made from its count (1, 2, ...). */
export function postEach(path: string, body: (n: number) => unknown): autocannon.Request[] {
  let n = 0;
  return [{ method: 'POST', path, setupRequest: (req) => ({ ...req, body: JSON.stringify(body(++n)) }) }];
}

/** autocannon's requests: a POST to `path(id)` for each id in turn (once each when the run's amount is ids.length). */
export function postToEach(ids: string[], path: (id: string) => string): autocannon.Request[] {
  let next = 0;
  return [{ method: 'POST', setupRequest: (req) => ({ ...req, method: 'POST', path: path(ids[next++ % ids.length]!) }) }];
}
