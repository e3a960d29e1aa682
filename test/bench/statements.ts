/**
 * Statements per request by process, from the counts pg-count.ts (preloaded into every stack
 * process) writes to one folder: a snapshot before and after a scenario, their difference by the
 * stack's instance names.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Stack } from '@acct/stack';
import type { CountFile } from './pg-count';

/** Calls and client ms so far, by "group\ttext". */
export type StatementSnapshot = Map<string, { n: number; ms: number }>;

/** One statement's calls and time between two snapshots. */
export interface StatementDelta {
  group: string;
  text: string;
  n: number;
  ms: number;
}

/** The node flag that preloads the counter (for STACK_NODE_ARGS). */
export const COUNTER_PRELOAD = `--require=${path.join(__dirname, 'pg-count.js')}`;

/** How long a counter may take to write what it counted (it writes every 200 ms). */
export const COUNTER_FLUSH_MS = 300;

export function readStatements(dir: string, stack: Stack): StatementSnapshot {
  const s: StatementSnapshot = new Map();
  for (const [name, svc] of stack.services) {
    if (!svc.child.pid) continue;
    let f: CountFile;
    try {
      f = JSON.parse(fs.readFileSync(path.join(dir, `${svc.child.pid}.json`), 'utf8')) as CountFile;
    } catch {
      continue; // nothing sent yet
    }
    for (const [text, n, ms] of f.statements) s.set(`${name}\t${text}`, { n, ms });
  }
  return s;
}

/** What each statement was called for between the snapshots (a process restarted meanwhile counts from 0). */
export function statementDelta(before: StatementSnapshot, after: StatementSnapshot): StatementDelta[] {
  const out: StatementDelta[] = [];
  for (const [key, a] of after) {
    const b = before.get(key);
    const n = a.n - (b && b.n <= a.n ? b.n : 0);
    if (n <= 0) continue;
    const tab = key.indexOf('\t');
    out.push({ group: key.slice(0, tab), text: key.slice(tab + 1), n, ms: a.ms - (b && b.n <= a.n ? b.ms : 0) });
  }
  return out;
}

/** Statements per request by group. */
export function perRequest(delta: StatementDelta[], requests: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of delta) out[d.group] = (out[d.group] ?? 0) + d.n;
  for (const k of Object.keys(out)) out[k] = requests ? out[k]! / requests : NaN;
  return out;
}
