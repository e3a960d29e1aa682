import fs from 'node:fs';
import path from 'node:path';

/**
 * What `npm start` runs, recorded in its data folder (`.data/stack.json`) so that the admin CLI
 * reaches the same stack without being told: the embedded Postgres and its own nats-server listen on
 * ports picked at each start. No secret goes in: URLs without their passwords, and the path of the
 * NATS admin seed file that `.data` holds already. Removed when npm start stops; one left behind by
 * a crash names a pid that no longer runs and is ignored.
 */
export interface StackRecord {
  pid: number;
  started_at: string;
  /** The stack's DATABASE_URL, without a password (the CLI's Postgres client then uses PGPASSWORD or ~/.pgpass). */
  database_url: string;
  /** The stack's NATS_URL, without credentials. */
  nats_url: string;
  nats_prefix: string;
  /** The file holding the NATS `admin` user's nkey seed, when the stack's nats-server has users. */
  nats_admin_seed_file: string | null;
  gateway_url: string;
}

export const STACK_RECORD_FILE = 'stack.json';

/** `npm start`'s state folder (embedded Postgres, NATS store, admin.nkey, stack.json): STACK_DATA_DIR, else `.data` of the repository. */
export function stackDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.STACK_DATA_DIR || path.resolve(__dirname, '..', '..', '..', '.data');
}

/** A URL without its password (user names stay: they are no secret). */
export function withoutPassword(url: string): string {
  return url
    .split(',')
    .map((one) => {
      try {
        const u = new URL(one.trim());
        if (!u.password) return one.trim();
        u.password = '';
        return u.toString();
      } catch {
        return one.trim();
      }
    })
    .join(',');
}

/** Writes the record (0600, replaced atomically); passwords in the URLs are dropped. */
export function writeStackRecord(dir: string, record: StackRecord): void {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, STACK_RECORD_FILE);
  const safe: StackRecord = { ...record, database_url: withoutPassword(record.database_url), nats_url: withoutPassword(record.nats_url) };
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(safe, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
}

/** Removes the record if it is the one process `pid` wrote (a newer npm start's stays). */
export function removeStackRecord(dir: string, pid: number = process.pid): void {
  if (readStackRecord(dir)?.pid === pid) fs.rmSync(path.join(dir, STACK_RECORD_FILE), { force: true });
}

export function readStackRecord(dir: string): StackRecord | undefined {
  try {
    const r = JSON.parse(fs.readFileSync(path.join(dir, STACK_RECORD_FILE), 'utf8')) as Partial<StackRecord>;
    const ok = Number.isSafeInteger(r.pid) && [r.database_url, r.nats_url, r.nats_prefix].every((s) => typeof s === 'string' && s);
    return ok ? (r as StackRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid runs (one of another user's counts). */
export function pidRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === 'EPERM';
  }
}

/**
 * The variables the admin CLI takes from the recorded stack, for those its environment does not set:
 * DATABASE_URL; and when NATS_URL is unset, NATS_URL, NATS_PREFIX (unless set) and the admin seed
 * (NATS_NKEY_SEED, unless credentials are set). `note` says on one line which stack is used, or
 * why none is; undefined when the environment sets everything itself.
 */
export function recordedStackEnv(env: NodeJS.ProcessEnv, dir: string): { env: Record<string, string>; note?: string } {
  const wantsDb = !env.DATABASE_URL;
  const wantsNats = !env.NATS_URL;
  if (!wantsDb && !wantsNats) return { env: {} };
  const file = path.join(dir, STACK_RECORD_FILE);
  const record = readStackRecord(dir);
  const unset = [wantsDb ? 'DATABASE_URL' : '', wantsNats ? 'NATS_URL' : ''].filter(Boolean).join(' and ');
  if (!record) return { env: {}, note: `no stack recorded by npm start (${file}), ${unset} not set: using the defaults` };
  if (!pidRunning(record.pid)) return { env: {}, note: `${file} names npm start pid ${record.pid}, which is not running: ignored; ${unset} not set: using the defaults` };
  const out: Record<string, string> = {};
  const said: string[] = [];
  if (wantsDb) {
    out.DATABASE_URL = record.database_url;
    said.push(`database ${record.database_url}`);
  }
  if (wantsNats) {
    out.NATS_URL = record.nats_url;
    if (!env.NATS_PREFIX) out.NATS_PREFIX = record.nats_prefix;
    said.push(`NATS ${record.nats_url} (prefix ${env.NATS_PREFIX || record.nats_prefix})`);
    if (record.nats_admin_seed_file && !env.NATS_NKEY_SEED && !env.NATS_USER) {
      out.NATS_NKEY_SEED = fs.readFileSync(record.nats_admin_seed_file, 'utf8').trim();
      said.push(`as admin (seed ${record.nats_admin_seed_file})`);
    }
  }
  return { env: out, note: `using the stack npm start runs (pid ${record.pid}, ${file}): ${said.join(', ')}` };
}
