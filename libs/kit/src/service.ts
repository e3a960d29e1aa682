import type { NatsConnection } from 'nats';
import { type ServiceName, manifestOf } from '@acct/contracts';
import { baseConfigSpec, loadConfig, opsPortVar, v } from './config';
import { type EntitySchema } from '@mikro-orm/core';
import { type MigrationDef, type Orm, openOrm } from './db';
import type { Logger } from './logger';
import { type ServiceMetrics, createMetrics } from './metrics';
import { Outbox, ensureEventsStream } from './outbox';
import { RpcServer } from './rpc';
import { RpcIdempotency } from './rpc-idempotency';
import { migrateMain, startRuntime, type OrmOpener } from './runtime';
import { type ShutdownStep, runMain } from './lifecycle';
import type { ReadinessCheck } from './ops';

/** What a service's register() gets: the wired RPC server and, for a posting service, its outbox. */
export interface ServiceWiring {
  name: ServiceName;
  prefix: string;
  nc: NatsConnection;
  orm: Orm;
  log: Logger;
  metrics?: ServiceMetrics;
  server: RpcServer;
  /** The Idempotency-Key answers the RPC server keeps (rpc-idempotency.ts). */
  keys: RpcIdempotency;
  /** Present when the manifest says the service posts. */
  outbox?: Outbox;
}

/** Everything that makes one service, declared once and used by main, migrate and the tests. */
export interface ServiceDefinition {
  name: ServiceName;
  entities: EntitySchema[];
  migrations: MigrationDef[];
  /** Registers every RPC operation of the service on wiring.server. */
  register(wiring: ServiceWiring): void;
  /**
   * Background work started after the RPC server serves and stopped after it drained (e.g. an
   * EventConsumer). Created from the wiring, so register() can share state with it.
   */
  workers?(wiring: ServiceWiring): Worker[];
  /** Extra readiness checks beside Postgres and NATS (e.g. the documents bucket). */
  checks?: Record<string, (wiring: ServiceWiring) => Promise<boolean>>;
}

/** Something a service runs beside its RPC server (an event consumer, a poller). */
export interface Worker {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the workers of a service in order; returns the shutdown steps that stop them in reverse. */
export async function startWorkers(workers: readonly Worker[]): Promise<ShutdownStep[]> {
  for (const w of workers) await w.start();
  return [...workers].reverse().map((w) => ({ name: w.name, run: () => w.stop() }));
}

/** The Postgres schema a service owns: its name in snake case. */
export function schemaOf(name: ServiceName): string {
  return name.replace(/-/g, '_');
}

export function ormOpener(def: Pick<ServiceDefinition, 'name' | 'entities' | 'migrations'>): OrmOpener {
  return (url, poolMax, log) => openOrm({ url, schema: schemaOf(def.name), entities: def.entities, migrations: def.migrations, poolMax, log });
}

/**
 * Builds a service's RPC server (and outbox, if it posts) and registers its operations, without
 * starting anything: main starts it, integration tests start it on their own database and prefix.
 */
export function wireService(def: ServiceDefinition, deps: { nc: NatsConnection; prefix: string; orm: Orm; log: Logger; metrics?: ServiceMetrics; outbox?: Outbox }): ServiceWiring {
  const m = manifestOf(def.name);
  const outbox = m.posts ? (deps.outbox ?? new Outbox(deps.nc, deps.orm, deps.log, deps.metrics)) : undefined;
  // Every keyed write is answered once, its first answer kept in the service's schema (rpc-idempotency.ts).
  const keys = new RpcIdempotency(deps.orm);
  const server = new RpcServer(deps.nc, deps.prefix, def.name, deps.log, deps.metrics, { keys });
  const wiring: ServiceWiring = { name: def.name, prefix: deps.prefix, nc: deps.nc, orm: deps.orm, log: deps.log, metrics: deps.metrics, server, keys, outbox };
  def.register(wiring);
  return wiring;
}

/** How often a service deletes the Idempotency-Key answers past their 24 hours. */
const KEY_PURGE_INTERVAL_MS = 10 * 60 * 1000;

/** Variables a service process reads beside the base ones. */
export const serviceConfigSpec = {
  OUTBOX_RELAY_INTERVAL_MS: v.int(5000, 'how often the outbox relay publishes rows a crash left behind', 50, 600_000),
  EVENTS_STREAM_REPLICAS: v.int(1, 'copies of the events stream on a JetStream cluster when this service creates it (3 on a 3-node cluster)', 1, 5),
  EVENTS_DUPLICATE_WINDOW_S: v.int(120, "the events stream's dedupe window when this service creates it, seconds", 1, 86_400),
};

/**
 * The whole main.ts of a service: config, logger, Postgres, NATS, ops server; for a posting
 * service the events stream, the outbox relay and its backlog gauges; the RPC server; and a
 * graceful shutdown (readiness red, stop taking requests, finish in-flight ones, stop the relay).
 */
export function startService(def: ServiceDefinition): void {
  runMain(async () => {
    const config = loadConfig({ ...baseConfigSpec, OPS_PORT: opsPortVar(def.name), ...serviceConfigSpec });
    const metrics = createMetrics(def.name);
    let wiring: ServiceWiring | undefined;
    // Ready only once the NATS server knows every RPC subscription: before that, a request the
    // gateway sends on a green /readyz would find no responder (503).
    let serving = false;
    const rt = await startRuntime({
      name: def.name,
      config,
      metrics,
      openOrm: ormOpener(def),
      checks: {
        rpc: () => Promise.resolve(serving),
        ...Object.fromEntries(Object.entries(def.checks ?? {}).map(([name, check]): [string, ReadinessCheck] => [name, async () => (wiring ? check(wiring) : false)])),
      },
    });
    const posts = manifestOf(def.name).posts;
    if (posts)
      await ensureEventsStream(rt.nc, config.NATS_PREFIX, { duplicateWindowMs: config.EVENTS_DUPLICATE_WINDOW_S * 1000, replicas: config.EVENTS_STREAM_REPLICAS, log: rt.log });
    const outbox = posts ? new Outbox(rt.nc, rt.orm, rt.log, metrics, { relayIntervalMs: config.OUTBOX_RELAY_INTERVAL_MS }) : undefined;
    wiring = wireService(def, { nc: rt.nc, prefix: config.NATS_PREFIX, orm: rt.orm, log: rt.log, metrics, outbox });
    wiring.server.start();
    await rt.nc.flush(); // the subscriptions have reached the server
    serving = true;
    if (outbox) {
      // Publish anything a previous process committed but did not get to publish, then keep watching.
      await outbox.relayOnce().catch((err) => rt.log.warn({ err }, 'initial outbox relay failed'));
      outbox.startRelay();
      outbox.registerBacklogMetrics();
    }
    const stopWorkers = await startWorkers(def.workers?.(wiring) ?? []);
    const { server, keys } = wiring;
    const purge = setInterval(() => void keys.purgeExpired().catch((err) => rt.log.warn({ err }, 'Idempotency-Key purge failed')), KEY_PURGE_INTERVAL_MS).unref();
    rt.onShutdown([
      { name: 'rpc', run: () => server.drain() },
      ...stopWorkers,
      ...(outbox ? [{ name: 'outbox', run: () => outbox.stopRelay() }] : []),
      { name: 'keys', run: () => Promise.resolve(clearInterval(purge)) },
    ]);
    rt.log.info({ ops_port: rt.ops.port }, `${def.name} serving`);
  });
}

/** The whole migrate.ts of a service. */
export function migrateService(def: ServiceDefinition): void {
  migrateMain(def.name, ormOpener(def));
}
