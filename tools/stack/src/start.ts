import { SERVICE_MANIFEST } from '@acct/contracts';
import { baseConfigSpec, gatewayPortVar, loadConfig, removeStackRecord, runMain, stackDataDir, v, writeStackRecord } from '@acct/kit';
import fs from 'node:fs';
import path from 'node:path';
import { type LocalService, LocalServiceError, localNats, localPostgres } from './local-services';
import { type DevSeed, bootstrapDevKey, dashboardLine } from './seed';
import { MANIFEST_OPS_BASE, type Stack, opsPortsFor, startStack } from './stack';

/** Postgres and NATS as started (or found) for this stack, stopped in reverse order on the way out. */
interface Local {
  services: LocalService[];
  /** NATS credentials by principal when the nats-server is our own with users. */
  natsSeeds?: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Postgres and NATS: the ones given or found, else our own; DATABASE_URL and NATS_URL point at
 * them. A LocalServiceError ends the process with its one line, no stack trace.
 */
async function startLocal(dataDir: string, adminSeedFile: string): Promise<Local> {
  const local: Local = {
    services: [],
    stop: async () => {
      for (const s of local.services.reverse()) await s.stop().catch(() => undefined);
    },
  };
  try {
    const log = (line: string) => process.stdout.write(`${line}\n`);
    const pg = await localPostgres({ dataDir: path.join(dataDir, 'postgres'), database: 'accounting' });
    local.services.push(pg);
    const { NATS_PREFIX } = loadConfig({ NATS_PREFIX: baseConfigSpec.NATS_PREFIX });
    const nats = await localNats({ storeDir: path.join(dataDir, 'nats'), logFile: path.join(dataDir, 'nats-server.log'), prefix: NATS_PREFIX });
    local.services.push(nats);
    local.natsSeeds = nats.natsSeeds;
    // The admin CLI's commands over NATS need the admin user's seed on this bus (stack.json names the file).
    if (local.natsSeeds) fs.writeFileSync(adminSeedFile, `${local.natsSeeds.admin}\n`, { mode: 0o600 });
    process.env.DATABASE_URL = pg.url;
    process.env.NATS_URL = nats.url;
    log(`using ${pg.describe}`);
    log(`using ${nats.describe}`);
  } catch (e) {
    await local.stop();
    if (!(e instanceof LocalServiceError)) throw e;
    process.stderr.write(`npm start: ${e.message}\n`);
    process.exit(1);
  }
  return local;
}

function loadStartConfig() {
  return loadConfig({
    DATABASE_URL: baseConfigSpec.DATABASE_URL,
    NATS_URL: baseConfigSpec.NATS_URL,
    NATS_PREFIX: baseConfigSpec.NATS_PREFIX,
    GATEWAY_PORT: gatewayPortVar(),
    OPS_PORT_BASE: v.int(MANIFEST_OPS_BASE, 'first ops port (/metrics, /healthz, /readyz) of npm start; 0 picks free ports', 0, 65_000),
  });
}

type StartConfig = ReturnType<typeof loadStartConfig>;

/** Every service, supervised, its logs on this process's stdout; the local services stopped if it fails. */
async function startSupervisedStack(config: StartConfig, local: Local): Promise<Stack> {
  process.stdout.write(`starting: database ${config.DATABASE_URL.replace(/\/\/[^@]*@/, '//')}, NATS ${config.NATS_URL}, prefix ${config.NATS_PREFIX}\n`);
  return startStack({
    databaseUrl: config.DATABASE_URL,
    natsUrl: config.NATS_URL,
    natsPrefix: config.NATS_PREFIX,
    gatewayPort: config.GATEWAY_PORT,
    opsPorts: opsPortsFor(config.OPS_PORT_BASE),
    natsSeeds: local.natsSeeds,
    logs: 'inherit',
    // A service that dies is logged and started again (backoff 0.5 s doubling to 30 s).
    supervise: true,
  }).catch(async (e: unknown) => {
    await local.stop();
    throw e;
  });
}

/** `npm run admin -- ...` without DATABASE_URL / NATS_URL acts on this stack (readStackRecord in @acct/kit). */
function recordStack(dataDir: string, config: StartConfig, stack: Stack, adminSeedFile: string | null): void {
  writeStackRecord(dataDir, {
    pid: process.pid,
    started_at: new Date().toISOString(),
    database_url: config.DATABASE_URL,
    nats_url: config.NATS_URL,
    nats_prefix: config.NATS_PREFIX,
    nats_admin_seed_file: adminSeedFile,
    gateway_url: stack.gatewayUrl,
  });
  process.once('exit', () => removeStackRecord(dataDir));
}

function banner(stack: Stack, seed: DevSeed, dataDir: string, natsUser: boolean): string {
  return [
    '',
    `Accounting API listening on ${stack.gatewayUrl}`,
    `  organization_id   ${seed.organization_id}`,
    `  connected_app_id  ${seed.connected_app_id}`,
    `  test key          ${seed.test_key}`,
    dashboardLine(seed, `${stack.gatewayUrl}/dashboard`),
    '',
    `  try: curl -H "Authorization: Bearer ${seed.test_key}" ${stack.gatewayUrl}/api/v1/auth/check`,
    `  OpenAPI: ${stack.gatewayUrl}/developers/openapi.yaml`,
    `  ops ports (/metrics, /healthz, /readyz): ${SERVICE_MANIFEST.map((s) => `${s.name} ${stack.services.get(s.name)?.opsPort}`).join(', ')}`,
    `  admin CLI (npm run admin -- help) acts on this stack: ${path.join(dataDir, 'stack.json')}${natsUser ? ', as the NATS admin user' : ''}`,
    `  supervised: a service that exits is logged and restarted (0.5 s, doubling to 30 s); kill -USR2 ${process.pid} prints the status`,
    `  status: ${stack.status()}`,
    '  Ctrl-C stops everything.',
    '',
  ].join('\n');
}

/** Ctrl-C / SIGTERM stop the stack, then the local services; SIGUSR2 prints the status. */
function onSignals(stack: Stack, local: Local): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\nstopping...\n');
    await stack.stop();
    await local.stop();
    process.stdout.write('stopped.\n');
    process.exit(0);
  };
  process.on('SIGUSR2', () => process.stdout.write(`[stack] status: ${stack.status()}\n`));
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

/**
 * `npm start`: the whole system on this machine. Postgres and NATS: DATABASE_URL and NATS_URL when
 * set; else the servers on their default local ports when they answer; else an embedded Postgres
 * (data in .data/postgres, kept) and a nats-server of its own (store in .data/nats), stopped on Ctrl-C.
 * What it runs is recorded in .data/stack.json for the admin CLI (STACK_DATA_DIR moves .data).
 */
runMain(async () => {
  const dataDir = stackDataDir();
  const adminSeedFile = path.join(dataDir, 'admin.nkey');
  const local = await startLocal(dataDir, adminSeedFile);
  const config = loadStartConfig();
  const stack = await startSupervisedStack(config, local);
  recordStack(dataDir, config, stack, local.natsSeeds ? adminSeedFile : null);
  const seed = await bootstrapDevKey(config.DATABASE_URL, `${stack.gatewayUrl}/dashboard`);
  process.stdout.write(banner(stack, seed, dataDir, local.natsSeeds !== undefined));
  onSignals(stack, local);
});
