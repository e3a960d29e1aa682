import type { NatsConnection } from 'nats';
import type { ServiceName } from '@acct/contracts';
import { type BaseConfig, baseConfigSpec, databaseUrlOf, loadConfig } from './config';
import { createLogger, type Logger } from './logger';
import type { ServiceMetrics } from './metrics';
import { type Orm, ensureDatabase, migrate, pingDb } from './db';
import { connectNats } from './rpc';
import { type OpsServer, type ReadinessCheck, reportListening, startOpsServer } from './ops';
import { type ShutdownStep, installShutdown, runMain } from './lifecycle';

export type OrmOpener = (url: string, poolMax?: number, log?: Logger) => Promise<Orm>;

export interface ServiceRuntime {
  log: Logger;
  orm: Orm;
  nc: NatsConnection;
  ops: OpsServer;
  /**
   * Installs SIGTERM/SIGINT handling: readiness goes red, then `steps` (stop taking work, finish
   * in-flight requests), then NATS drains, the pool closes and the ops port closes.
   */
  onShutdown(steps: ShutdownStep[]): () => Promise<void>;
}

export async function natsReady(nc: NatsConnection): Promise<boolean> {
  if (nc.isClosed()) return false;
  await nc.flush();
  return true;
}

/** The common start of every service process. */
export async function startRuntime(opts: {
  name: ServiceName;
  config: BaseConfig;
  metrics: ServiceMetrics;
  openOrm: OrmOpener;
  checks?: Record<string, ReadinessCheck>;
}): Promise<ServiceRuntime> {
  const { config } = opts;
  const log = createLogger(opts.name, config.LOG_LEVEL);
  const orm = await opts.openOrm(databaseUrlOf(opts.name, config.DATABASE_URL), config.DB_POOL_MAX, log);
  const nc = await connectNats(config.NATS_URL, opts.name, log, config);
  const ops = await startOpsServer({
    port: config.OPS_PORT,
    registry: opts.metrics.registry,
    log,
    checks: { postgres: () => pingDb(orm), nats: () => natsReady(nc), ...(opts.checks ?? {}) },
  });
  reportListening('ops', ops.port);
  return {
    log,
    orm,
    nc,
    ops,
    onShutdown: (steps) =>
      installShutdown(
        log,
        [
          { name: 'readiness', run: () => ops.markShuttingDown() },
          ...steps,
          { name: 'nats', run: () => nc.drain() },
          { name: 'postgres', run: () => orm.close() },
          { name: 'ops', run: () => ops.close() },
        ],
        config.SHUTDOWN_TIMEOUT_MS,
      ),
  };
}

/** `node dist/migrate.js`: creates the database if missing and applies the service's migrations. */
export async function migrateCommand(name: string, url: string, open: OrmOpener): Promise<string[]> {
  await ensureDatabase(url);
  const orm = await open(url, 2);
  try {
    return await migrate(orm);
  } finally {
    await orm.close(true);
  }
}

/** The whole body of a service's migrate.ts. */
export function migrateMain(name: ServiceName, open: OrmOpener): void {
  runMain(async () => {
    const { DATABASE_URL, LOG_LEVEL } = loadConfig({ DATABASE_URL: baseConfigSpec.DATABASE_URL, LOG_LEVEL: baseConfigSpec.LOG_LEVEL });
    const applied = await migrateCommand(name, databaseUrlOf(name, DATABASE_URL), open);
    createLogger(name, LOG_LEVEL).info({ applied }, 'migrations applied');
  });
}
