/**
 * Preloaded into every stack process by bench:compare (`node --require`, through the stack's
 * STACK_NODE_ARGS) when BENCH_PG_COUNT_DIR is set: counts the statements the process sends to
 * Postgres through pg's Client.query (MikroORM's knex, @acct/kit's named statements, everything),
 * by shape (shapeOf: literals as `?`; a regular expression or four per call, the only cost the
 * counting adds to the processes' CPU besides a map update), with the client-side time of each (send to result, the client's queue included). Every
 * 200 ms when something changed, and at exit, it writes them to BENCH_PG_COUNT_DIR/<pid>.json
 * (statements.ts reads them). Nothing of the repository's code changes, so a baseline checkout's
 * stack is counted the same way. Without pg_stat_statements on the server, this is how the bench
 * gets statements per request by service.
 */
import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';

/** Distinct texts kept; any further one counts under OTHER. */
const MAX_TEXTS = 500;
const OTHER = '(other statements)';

/** What a process writes: [text, calls, client ms] per statement. */
export interface CountFile {
  pid: number;
  statements: [string, number, number][];
}

/**
 * A statement's text with its literals as `?` and repeated rows or lists once (MikroORM inlines
 * values): one key per statement shape, not per call.
 */
export function shapeOf(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/'(?:[^']|'')*'/g, '?')
    .replace(/(?<![\w$"])-?\d+(?:\.\d+)?\b/g, '?')
    .replace(/\?(?:, \?)+/g, '?, ...')
    .replace(/(\([^()]*\))(?:, \1)+/g, '$1, ...');
}

type Callback = (err: unknown, res: unknown) => void;
type QueryFn = (this: unknown, config: unknown, values?: unknown, callback?: unknown) => unknown;

function install(dir: string): void {
  const stats = new Map<string, { n: number; ms: number }>();
  let changed = false;
  const record = (text: string, t0: bigint) => {
    const key = stats.has(text) || stats.size < MAX_TEXTS ? text : OTHER;
    const s = stats.get(key) ?? { n: 0, ms: 0 };
    s.n++;
    s.ms += Number(process.hrtime.bigint() - t0) / 1e6;
    stats.set(key, s);
    changed = true;
  };
  const file = path.join(dir, `${process.pid}.json`);
  const flush = () => {
    if (!changed) return;
    changed = false;
    const out: CountFile = { pid: process.pid, statements: [...stats].map(([t, s]) => [t, s.n, s.ms]) };
    try {
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(out));
      fs.renameSync(`${file}.tmp`, file);
    } catch {
      // the bench removed the folder: nothing to report to
    }
  };
  setInterval(flush, 200).unref();
  process.on('exit', flush);

  const patch = (pg: unknown) => {
    const proto = (pg as { Client?: { prototype?: { query?: QueryFn; __benchCounted?: boolean } } } | undefined)?.Client?.prototype;
    if (!proto?.query || proto.__benchCounted) return;
    proto.__benchCounted = true;
    const query = proto.query;
    proto.query = function (this: unknown, config: unknown, values?: unknown, callback?: unknown) {
      const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
      if (typeof text !== 'string') return query.call(this, config, values, callback);
      const t0 = process.hrtime.bigint();
      const key = shapeOf(text);
      // A submittable (a stream): counted when sent, without its time.
      if (typeof (config as { submit?: unknown }).submit === 'function') {
        record(key, t0);
        return query.call(this, config, values, callback);
      }
      if (typeof values === 'function') {
        const cb = values as Callback;
        return query.call(this, config, (err: unknown, res: unknown) => (record(key, t0), cb(err, res)));
      }
      if (typeof callback === 'function') {
        const cb = callback as Callback;
        return query.call(this, config, values, (err: unknown, res: unknown) => (record(key, t0), cb(err, res)));
      }
      const p = query.call(this, config, values);
      if (p && typeof (p as Promise<unknown>).then === 'function') {
        (p as Promise<unknown>).then(
          () => record(key, t0),
          () => record(key, t0),
        );
      }
      return p;
    };
  };
  // pg is loaded by whoever needs it first (knex, @acct/kit): patched as it loads.
  const M = Module as unknown as { _load: (request: string, parent: unknown, isMain: boolean) => unknown };
  const load = M._load;
  M._load = function (this: unknown, request: string, parent: unknown, isMain: boolean) {
    const exported = load.call(this, request, parent, isMain);
    if (request === 'pg') patch(exported);
    return exported;
  };
}

const dir = process.env.BENCH_PG_COUNT_DIR;
if (dir) install(dir);
