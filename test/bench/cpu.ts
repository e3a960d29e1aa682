/**
 * CPU accounting of the benches from /proc (Linux; a process that cannot be read counts 0):
 * utime+stime per process before and after a scenario, grouped, per request.
 */
import fs from 'node:fs';
import type { Stack } from '@acct/stack';

const CLK_TCK = 100;

/** utime+stime of a process, ms (0 when it is gone). */
export function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
  } catch {
    return 0;
  }
}

function procs(): { pid: number; comm: string; cmdline: string }[] {
  const out: { pid: number; comm: string; cmdline: string }[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const comm = fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim();
      if (comm !== 'postgres' && comm !== 'nats-server') continue;
      out.push({ pid: Number(d), comm, cmdline: fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** CPU ms per request, by group. */
export type CpuSample = Record<string, number>;
/** CPU ms so far of each process, by "group/pid" (a process that exits meanwhile is not counted). */
export type CpuSnapshot = Map<string, number>;

/**
 * Groups: each stack process by its instance (`gateway`, `gateway#1`, ...), pg (backends of
 * `dbName`), pg* (every postgres process), nats, client (this process). `natsPids`: the NATS
 * servers of this run; without them, every nats-server on the machine counts as nats.
 */
export function sampleCpu(stack: Stack | undefined, dbName: string, natsPids?: number[]): CpuSnapshot {
  const s: CpuSnapshot = new Map();
  for (const [name, svc] of stack?.services ?? []) if (svc.child.pid) s.set(`${name}/${svc.child.pid}`, cpuMs(svc.child.pid));
  for (const pid of natsPids ?? []) s.set(`nats/${pid}`, cpuMs(pid));
  for (const p of procs()) {
    const ms = cpuMs(p.pid);
    if (p.comm === 'nats-server') {
      if (!natsPids) s.set(`nats/${p.pid}`, ms);
    } else {
      s.set(`pg*/${p.pid}`, ms);
      // A backend's title: "postgres: [<cluster>: ]<user> <database> <host> <state>".
      if (p.cmdline.split(/\s+/).includes(dbName)) s.set(`pg/${p.pid}`, ms);
    }
  }
  const u = process.cpuUsage();
  s.set('client/0', (u.user + u.system) / 1000);
  return s;
}

/** Per group, the CPU the processes alive at the end spent since `before` (all of it for new ones), per request. */
export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): CpuSample {
  const out: CpuSample = {};
  for (const [key, ms] of after) {
    const group = key.slice(0, key.lastIndexOf('/'));
    out[group] = (out[group] ?? 0) + Math.max(0, ms - (before.get(key) ?? 0));
  }
  for (const k of Object.keys(out)) out[k] = requests ? out[k]! / requests : NaN;
  return out;
}

/** Busy and total jiffies of the whole machine so far (the first line of /proc/stat), or null. */
export function machineTicks(): { busy: number; total: number } | null {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    // idle + iowait are not busy.
    return { busy: total - (f[3] ?? 0) - (f[4] ?? 0), total };
  } catch {
    return null;
  }
}

/**
 * Resident memory of a process, MB: VmRSS less RssShmem (a Postgres backend's RSS counts the shared
 * buffers it touched, the same pages in every backend; without them backends add up). 0 when gone.
 */
export function rssMb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return (kb('VmRSS') - kb('RssShmem')) / 1024;
  } catch {
    return 0;
  }
}

/** MB resident now by group: each stack process by its instance, pg (the backends of `dbName`, summed), nats (summed). */
export function sampleRss(stack: Stack, dbName: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, svc] of stack.services) if (svc.child.pid) out[name] = rssMb(svc.child.pid);
  out.pg = 0;
  out.nats = 0;
  for (const p of procs()) {
    if (p.comm === 'nats-server') out.nats += rssMb(p.pid);
    else if (p.cmdline.split(/\s+/).includes(dbName)) out.pg += rssMb(p.pid);
  }
  return out;
}

/** Samples sampleRss every `everyMs` until stopped; stop() gives each group's peak. */
export function watchRss(stack: Stack, dbName: string, everyMs = 500): { stop(): Record<string, number> } {
  const peak: Record<string, number> = {};
  const take = () => {
    for (const [g, mb] of Object.entries(sampleRss(stack, dbName))) peak[g] = Math.max(peak[g] ?? 0, mb);
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}
