import { type NatsConnection, connect } from 'nats';
import {
  baseConfigSpec,
  databaseExists,
  databaseName,
  databaseUrlOf,
  ensureDatabase,
  loadConfig,
  natsAuthOptions,
  natsAuthSpec,
  recordedStackEnv,
  stackDataDir,
  withoutPassword,
} from '@acct/kit';

/**
 * What the admin CLI acts on: the database and the bus of the environment (DATABASE_URL, NATS_URL,
 * ...), else of the stack `npm start` runs (its .data/stack.json), else the defaults.
 */

/** The stack the CLI would act on is not there (no database, no server): a message, exit 1. */
export class TargetError extends Error {}

/**
 * Takes what the environment does not set from the stack npm start runs, into this process's
 * environment (the scripts the CLI hands commands to inherit it), and says which on stderr.
 */
export function useRecordedStack(env: NodeJS.ProcessEnv = process.env): void {
  const found = recordedStackEnv(env, stackDataDir(env));
  Object.assign(env, found.env);
  if (found.note) process.stderr.write(`admin: ${found.note}\n`);
}

/**
 * The gateway's database. One that does not exist is created only when asked (`--create-database`):
 * a database made by mistake holds keys no running stack knows.
 */
export async function gatewayDatabase(create: boolean): Promise<string> {
  const { DATABASE_URL } = loadConfig({ DATABASE_URL: baseConfigSpec.DATABASE_URL });
  const url = databaseUrlOf('gateway', DATABASE_URL);
  let exists: boolean;
  try {
    exists = await databaseExists(url);
  } catch (e) {
    throw new TargetError(`cannot reach Postgres at ${withoutPassword(url)}: ${(e as Error).message} (is the stack running? npm start, or set DATABASE_URL)`);
  }
  if (exists) return url;
  if (!create) {
    throw new TargetError(
      `database "${databaseName(url)}" does not exist at ${withoutPassword(url)}: not the database of a running stack ` +
        '(start it with npm start, or set DATABASE_URL to its database); --create-database creates it',
    );
  }
  await ensureDatabase(url);
  process.stderr.write(`admin: created database "${databaseName(url)}"\n`);
  return url;
}

/**
 * The one connection of every admin command that talks to NATS (NATS_URL, NATS_PREFIX): as the
 * `admin` user when credentials are set (NATS_NKEY_SEED, or NATS_USER=admin with NATS_PASSWORD; the
 * stack npm start runs gives its seed), as the bus of the chart and of npm start require.
 */
export async function connectAdminBus(): Promise<{ nc: NatsConnection; prefix: string }> {
  const { NATS_URL, NATS_PREFIX, ...auth } = loadConfig({ NATS_URL: baseConfigSpec.NATS_URL, NATS_PREFIX: baseConfigSpec.NATS_PREFIX, ...natsAuthSpec });
  const options = natsAuthOptions(auth, 'admin');
  try {
    const nc = await connect({ servers: NATS_URL.split(',').map((s) => s.trim()), name: 'admin', ...options });
    return { nc, prefix: NATS_PREFIX };
  } catch (e) {
    const as = Object.keys(options).length ? 'as admin' : 'without credentials';
    const message = (e as Error).message;
    const hint = /authori[sz]ation/i.test(message) ? ' (the admin user: NATS_NKEY_SEED, or NATS_USER=admin and NATS_PASSWORD)' : '';
    throw new TargetError(`cannot connect to NATS at ${withoutPassword(NATS_URL)} ${as}: ${message}${hint}`);
  }
}
