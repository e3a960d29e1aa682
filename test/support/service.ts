import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { type Environment, type RpcOperation, type RpcReply, type RpcRequest, type TrustedContext, eventsStreamName, manifestOf } from '@acct/contracts';
import {
  type Logger,
  type Orm,
  type ServiceDefinition,
  type ServiceMetrics,
  type ServiceWiring,
  type Worker,
  Outbox,
  RpcClient,
  createMetrics,
  ensureEventsStream,
  migrate,
  ormOpener,
  startWorkers,
  wireService,
} from '@acct/kit';
import { NATS_URL, type TestDatabase, freshDatabase, silentLogger, uniquePrefix } from './base';

/** A request context of a fresh organization and app (or of the one given). */
export function ctx(over: Partial<TrustedContext> & { environment?: Environment } = {}): TrustedContext {
  return { organizationId: randomUUID(), connectedAppId: randomUUID(), environment: 'test', apiKeyId: randomUUID(), requestId: randomUUID(), ...over };
}

export interface TestService {
  db: TestDatabase;
  orm: Orm;
  nc: NatsConnection;
  prefix: string;
  metrics: ServiceMetrics;
  wiring: ServiceWiring;
  /** A client on the service's prefix (20 s timeout: tests run beside others on a shared machine). */
  client: RpcClient;
  /** One RPC, with empty params, query and body unless given. */
  call(op: RpcOperation, c: TrustedContext, over?: Partial<RpcRequest>): Promise<RpcReply<any>>;
  /** The call's data, failing the test when the reply is an error. */
  ok(op: RpcOperation, c: TrustedContext, over?: Partial<RpcRequest>): Promise<any>;
  /** Raw SQL on the service's schema (`?` placeholders). */
  sql(q: string, params?: unknown[]): Promise<any[]>;
  /** Drains the server and workers, deletes the stream, closes NATS and the ORM, drops the database. */
  stop(): Promise<void>;
}

export interface TestServiceOptions {
  /** Start the definition's workers (consumers, delivery loops) after the server serves. */
  workers?: boolean;
  /** The outbox relay's minimum row age (0: publish what a crash left at once). */
  relayMinAgeMs?: number;
  /** An existing connection and prefix (several services of one test on the same bus). */
  nc?: NatsConnection;
  prefix?: string;
  poolMax?: number;
  /** An existing database (another process of the same service on it); stop() leaves it. */
  db?: TestDatabase;
  /** The service's logger (silent unless given, e.g. to read what it logs). */
  log?: Logger;
}

/**
 * One service against real Postgres and NATS, as main runs it but on its own database and NATS
 * prefix: migrated, wired (with an outbox when the manifest says it posts), serving, with its
 * workers when asked. What the integration tests of every service used to build by hand.
 */
export async function startServiceForTest(def: ServiceDefinition, opts: TestServiceOptions = {}): Promise<TestService> {
  const log = opts.log ?? silentLogger();
  const db = opts.db ?? (await freshDatabase(`acct_${def.name.replace(/-/g, '_')}_it`));
  const orm = await ormOpener(def)(db.url, opts.poolMax ?? 10, log);
  await migrate(orm);
  const ownNc = !opts.nc;
  // The stream is the test's own when the prefix is: a service joining another's prefix leaves it.
  const ownPrefix = !opts.prefix;
  const nc = opts.nc ?? (await connect({ servers: NATS_URL }));
  const prefix = opts.prefix ?? uniquePrefix();
  const posts = manifestOf(def.name).posts;
  if (posts) await ensureEventsStream(nc, prefix);
  const metrics = createMetrics(def.name, false);
  const outbox = posts ? new Outbox(nc, orm, log, metrics, { relayMinAgeMs: opts.relayMinAgeMs ?? 0 }) : undefined;
  outbox?.registerBacklogMetrics();
  const wiring = wireService(def, { nc, prefix, orm, log, metrics, outbox });
  wiring.server.start();
  const workers: Worker[] = opts.workers ? (def.workers?.(wiring) ?? []) : [];
  const stopSteps = await startWorkers(workers);
  const client = new RpcClient(nc, prefix, 20_000);
  const call = (op: RpcOperation, c: TrustedContext, over: Partial<RpcRequest> = {}): Promise<RpcReply<any>> =>
    client.call(op, { ctx: c, params: {}, query: {}, body: {}, ...over });
  return {
    db,
    orm,
    nc,
    prefix,
    metrics,
    wiring,
    client,
    call,
    async ok(op, c, over) {
      const r = await call(op, c, over);
      if (!r.ok) throw new Error(`${op}: expected ok, got ${JSON.stringify(r.error)}`);
      return r.body.data;
    },
    sql: (q, params = []) => orm.em.fork().getConnection().execute(q, params),
    async stop() {
      await wiring.server.drain();
      for (const step of stopSteps) await step.run();
      if (posts && ownPrefix) await (await nc.jetstreamManager()).streams.delete(eventsStreamName(prefix)).catch(() => undefined);
      if (ownNc) await nc.drain();
      await orm.close(true);
      if (!opts.db) await db.drop();
    },
  };
}
