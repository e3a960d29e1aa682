import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  CONSUMERS,
  LEDGER_CHAIN_OPERATIONS,
  type ConsumerName,
  MODULES,
  type ModuleName,
  type ParkedEventView,
  type ParkedEventsReply,
  type ParkedEventsRequest,
  isAppError,
  isConsumerName,
  parkedEventsSubject,
} from '@acct/contracts';
import type { NatsConnection } from 'nats';
import { type EntityManager, decodeJson, encodeJson, migrate, runMain } from '@acct/kit';
import { openGatewayOrm } from '../db';
import { checkRollHours, keyView } from '../dashboard/keys';
import * as admin from './admin';
import { formatRebuildProgress, requestRebuild } from './rebuild';
import { TargetError, connectAdminBus, gatewayDatabase, useRecordedStack } from './target';

const USAGE = `usage: npm run admin -- <command> [options]

  bootstrap [--name NAME] [--json]           organization + connected app + test and live keys
  dev-key                                    a fresh test key of the development organization (npm start)
  create-org --name NAME                     new organization (all modules enabled)
  create-app --org ORG_ID --name NAME        new connected app
  create-key --app APP_ID --env test|live    new API key (shown once)
  list-keys --app APP_ID                     keys of an app (never the keys themselves)
  roll-key --key KEY_ID|svc_... --expire-in-hours N
                                             a new key of the same app and environment (shown once); the
                                             current one keeps working N hours (0 to 168; 0: stops at once)
  revoke-key --key KEY_ID|svc_...            revoke a key (refused on every gateway replica within AUTH_CACHE_TTL_MS)
  modules --org ORG_ID [--enable a,b] [--disable c,d]
                                             enable/disable modules (${MODULES.join(', ')})
  disable-app --app APP_ID | enable-app --app APP_ID
  webhooks test ENDPOINT_ID                  send a webhook.test delivery (run by the webhook dispatcher)
  reporting rebuild                          drop the reporting projection and replay the events stream
                                             (asks a running reporting service over NATS; prints progress,
                                             waits until done, within its REPORTING_REBUILD_TIMEOUT_MS)
  events parked list [--consumer NAME] [--all] [--json]
                                             messages the event consumers parked (malformed, refused, failed),
                                             oldest first; --all includes discarded ones
  events parked show ID                      one parked message with its raw bytes (ID: <consumer>/<stream seq>)
  events parked retry ID                     apply it now (after a fix); refused again while it still fails a check
  events parked discard ID                   keep it on record but stop counting it (events_parked_messages)
                                             (asked over NATS of the running service of each consumer:
                                             ${Object.values(CONSUMERS).join(', ')})
  ledger verify                              re-compute the hash chain of every posting service's journal,
                                             every organization and environment (progress on stdout);
                                             exits 2 and names the first broken entry of a broken chain

Acts on the stack of the environment: GATEWAY_DATABASE_URL, else DATABASE_URL; NATS_URL, NATS_PREFIX and the admin
user's NATS_NKEY_SEED (or NATS_USER=admin and NATS_PASSWORD). What it does not set comes from the stack npm start runs
(.data/stack.json; its admin seed .data/admin.nkey), else the defaults (postgres://postgres@127.0.0.1:5432/accounting,
nats://127.0.0.1:4222); stderr says which. The database commands run the gateway's migrations first; a database that
does not exist is an error unless --create-database is given.`;

const OPTIONS = {
  name: { type: 'string' },
  org: { type: 'string' },
  app: { type: 'string' },
  env: { type: 'string' },
  key: { type: 'string' },
  'expire-in-hours': { type: 'string' },
  enable: { type: 'string' },
  disable: { type: 'string' },
  json: { type: 'boolean' },
  'create-database': { type: 'boolean' },
} as const;

type Opts = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

function opts(argv: string[]): Opts {
  try {
    return parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (e) {
    // parseArgs refuses unknown options, stray arguments and missing values: operator mistakes.
    if ((e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS_')) throw new UsageError((e as Error).message);
    throw e;
  }
}

function need(o: Opts, name: keyof typeof OPTIONS): string {
  const val = o[name];
  if (typeof val !== 'string' || !val) throw new UsageError(`--${name} is required\n\n${USAGE}`);
  return val;
}

function modulesList(s: string | undefined): ModuleName[] {
  if (typeof s !== 'string') return [];
  const list = s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const bad = list.filter((m) => !(MODULES as readonly string[]).includes(m));
  if (bad.length) throw new UsageError(`unknown module(s): ${bad.join(', ')}; known: ${MODULES.join(', ')}`);
  return list as ModuleName[];
}

/** Mistakes of the operator (unknown command, missing option, unknown id): a message, exit 1. */
class UsageError extends Error {}

runMain(async () => {
  try {
    await main();
  } catch (e) {
    if (!(e instanceof UsageError) && !(e instanceof admin.AdminNotFound) && !(e instanceof TargetError) && !isAppError(e)) throw e;
    process.stderr.write(`error: ${e.message}\n`);
    process.exit(1);
  }
});

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  useRecordedStack();
  if (await otherServiceCommand(command, rest)) return;
  const o = opts(rest);
  const url = await gatewayDatabase(o['create-database'] === true);
  const orm = await openGatewayOrm(url, 2);
  try {
    await migrate(orm);
    await databaseCommand(command, o, orm.em.fork());
  } finally {
    await orm.close(true);
  }
}

/** The commands another service's script or its running replicas serve; false for the gateway's own. */
async function otherServiceCommand(command: string, rest: string[]): Promise<boolean> {
  if (command === 'webhooks') {
    // Webhook endpoints live in the webhook dispatcher's schema: its own script serves these commands.
    const r = spawnSync(process.execPath, [path.resolve(__dirname, '../../../webhook-dispatcher/dist/workers/admin.js'), ...rest], { stdio: 'inherit' });
    process.exitCode = r.status ?? 1;
    return true;
  }
  if (command === 'events') {
    await eventsCommand(rest);
    return true;
  }
  if (command === 'ledger') {
    if (rest[0] !== 'verify' || rest.length > 1) throw new UsageError(`usage: npm run admin -- ledger verify\n\n${USAGE}`);
    // Each journal lives in its posting service's schema: each service's own script verifies it.
    let code = 0;
    for (const service of Object.keys(LEDGER_CHAIN_OPERATIONS)) {
      const r = spawnSync(process.execPath, [path.resolve(__dirname, `../../../${service}/dist/workers/admin.js`)], { stdio: 'inherit' });
      code = Math.max(code, r.status ?? 1);
    }
    process.exitCode = code;
    return true;
  }
  if (command === 'reporting') {
    if (rest[0] !== 'rebuild' || rest.length > 1) throw new UsageError(`usage: npm run admin -- reporting rebuild\n\n${USAGE}`);
    await reportingRebuild();
    return true;
  }
  return false;
}

/** The gateway's own commands, on its database (migrated). */
async function databaseCommand(command: string, o: Opts, em: EntityManager): Promise<void> {
  const print = (v: unknown) => process.stdout.write(`${JSON.stringify(v, null, o.json ? undefined : 2)}\n`);
  switch (command) {
    case 'bootstrap': {
      const b = await admin.bootstrap(em, typeof o.name === 'string' ? o.name : undefined);
      if (o.json) print(b);
      else {
        process.stdout.write(
          `organization_id  ${b.organization_id}\nconnected_app_id ${b.connected_app_id}\n` +
            `test_key         ${b.test_key}\nlive_key         ${b.live_key}\n\nKeys are shown once: store them on your app server.\n`,
        );
      }
      break;
    }
    case 'dev-key':
      print(await admin.devKey(em));
      break;
    case 'create-org':
      print(await admin.createOrganization(em, need(o, 'name')));
      break;
    case 'create-app':
      print(await admin.createConnectedApp(em, need(o, 'org'), need(o, 'name')));
      break;
    case 'create-key': {
      const env = need(o, 'env');
      if (env !== 'test' && env !== 'live') throw new UsageError('--env must be test or live');
      const made = await admin.createApiKey(em, need(o, 'app'), env);
      print({ ...keyView(made.row), key: made.key });
      break;
    }
    case 'roll-key': {
      const given = need(o, 'expire-in-hours');
      const hours = checkRollHours(/^\d+$/.test(given) ? Number(given) : NaN, '--expire-in-hours');
      const rolled = await admin.rollApiKey(em, need(o, 'key'), hours);
      print({ ...keyView(rolled.row), key: rolled.key, previous: keyView(rolled.previous) });
      break;
    }
    case 'list-keys':
      print(await admin.listApiKeys(em, need(o, 'app')));
      break;
    case 'revoke-key': {
      const { row } = await admin.revokeApiKey(em, need(o, 'key'));
      print(keyView(row));
      break;
    }
    case 'modules':
      print({ enabled_modules: await admin.setModules(em, need(o, 'org'), modulesList(o.enable), modulesList(o.disable)) });
      break;
    case 'disable-app':
    case 'enable-app': {
      const app = await admin.setAppStatus(em, need(o, 'app'), command === 'disable-app' ? 'disabled' : 'active');
      print({ id: app.id, status: app.status });
      break;
    }
    default:
      throw new UsageError(`unknown command ${command}\n\n${USAGE}`);
  }
}

/**
 * Asks the reporting service to rebuild its projection from the stream (NATS_URL, NATS_PREFIX):
 * progress lines on stderr about once a second, the result as JSON on stdout. The wait follows the
 * replica's REPORTING_REBUILD_TIMEOUT_MS (admin/rebuild.ts).
 */
async function reportingRebuild(): Promise<void> {
  const { nc, prefix } = await connectAdminBus();
  try {
    const reply = await requestRebuild(nc, prefix, (p) => process.stderr.write(`${formatRebuildProgress(p)}\n`));
    if (!reply.ok) throw new Error(`rebuild failed: ${reply.error}`);
    process.stdout.write(`${JSON.stringify({ applied: reply.applied, last_seq: reply.last_seq })}\n`);
  } finally {
    await nc.drain();
  }
}

const PARKED_USAGE = `usage: npm run admin -- events parked list [--consumer NAME] [--all] [--json] | show ID | retry ID | discard ID`;

/** `events parked ...`: the parked messages of the event consumers, asked of their running services over NATS. */
async function eventsCommand(argv: string[]): Promise<void> {
  const [group, action, ...rest] = argv;
  if (group !== 'parked' || !action) throw new UsageError(`${PARKED_USAGE}\n\n${USAGE}`);
  const print = (v: unknown) => process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
  if (action === 'list') {
    const { values } = parseParked(rest, { consumer: { type: 'string' }, all: { type: 'boolean' }, json: { type: 'boolean' } });
    const consumer = values.consumer as string | undefined;
    if (consumer !== undefined && !isConsumerName(consumer)) throw new UsageError(`unknown consumer ${consumer}; known: ${Object.values(CONSUMERS).join(', ')}`);
    const consumers = consumer ? [consumer] : (Object.values(CONSUMERS) as ConsumerName[]);
    const { nc, prefix } = await connectAdminBus();
    const request = parkedRequester(nc, prefix);
    try {
      const out: ParkedEventView[] = [];
      let failed = false;
      for (const c of consumers) {
        const r = await request(c, { action: 'list', include_discarded: values.all === true, limit: 1000 }).catch((e: Error) => ({ ok: false as const, error: e.message }));
        if (!r.ok) {
          failed = true;
          process.stderr.write(`error: ${c}: ${r.error}\n`);
          continue;
        }
        out.push(...(r.events ?? []));
      }
      if (values.json) print(out);
      else if (out.length === 0) process.stdout.write('no parked messages\n');
      else {
        for (const e of out) {
          const state = e.discarded_at ? `discarded ${e.discarded_at}` : 'parked';
          process.stdout.write(`${e.id}\t${e.reason}\t${e.parked_at}\t${state}\t${e.subject}\t${e.error}\n`);
        }
      }
      if (failed) process.exitCode = 1;
    } finally {
      await nc.drain();
    }
    return;
  }
  if (action !== 'show' && action !== 'retry' && action !== 'discard') throw new UsageError(`${PARKED_USAGE}\n\n${USAGE}`);
  const { positionals } = parseParked(rest, {});
  if (positionals.length !== 1) throw new UsageError(PARKED_USAGE);
  const m = /^([a-z0-9-]+)\/([1-9][0-9]*)$/.exec(positionals[0]!);
  if (!m || !isConsumerName(m[1]!) || !Number.isSafeInteger(Number(m[2]))) {
    throw new UsageError(`${positionals[0]} is not a parked message id: <consumer>/<stream seq>, consumer one of ${Object.values(CONSUMERS).join(', ')}`);
  }
  const { nc, prefix } = await connectAdminBus();
  try {
    const r = await parkedRequester(nc, prefix)(m[1], { action, stream_seq: Number(m[2]) });
    if (!r.ok) throw new UsageError(r.error);
    print(action === 'retry' ? { id: positionals[0], outcome: r.outcome } : r.event);
  } finally {
    await nc.drain();
  }
}

function parseParked(args: string[], options: Record<string, { type: 'string' | 'boolean' }>) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (e) {
    if ((e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS_')) throw new UsageError(`${(e as Error).message}\n${PARKED_USAGE}`);
    throw e;
  }
}

function parkedRequester(nc: NatsConnection, prefix: string) {
  return async (consumer: ConsumerName, req: ParkedEventsRequest): Promise<ParkedEventsReply> => {
    try {
      const reply = await nc.request(parkedEventsSubject(prefix, consumer), encodeJson(req), { timeout: 30_000 });
      return decodeJson<ParkedEventsReply>(reply.data);
    } catch (e) {
      if ((e as { code?: string }).code === '503') return { ok: false, error: `no running service answers for ${consumer} (is it started, with this NATS_PREFIX?)` };
      throw e;
    }
  };
}
