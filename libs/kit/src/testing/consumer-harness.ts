import { randomUUID } from 'node:crypto';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { eventsStreamName } from '@acct/contracts';
import { NATS_URL, freshDatabase, silentLogger, uniquePrefix, waitFor, type TestDatabase } from '@acct/testing';
import { CONSUMER_MIGRATIONS, type ConsumedEvent, EventConsumer } from '../consumer';
import { ddlMigration, migrate, openOrm, type Orm } from '../db';
import { createMetrics } from '../metrics';
import { OUTBOX_DDL, type Outbox, ensureEventsStream } from '../outbox';

/** The events stream's dedupe window in these tests. */
export const WINDOW_MS = 1000;

export interface TestConsumerOptions {
  fail?: (e: ConsumedEvent) => boolean;
  maxDeliveries?: number;
  refuse?: (e: ConsumedEvent) => string | undefined;
  skip?: (events: ConsumedEvent[]) => Promise<boolean[]>;
  /** Gives the consumer an applyBatch (one INSERT per batch) that records the size of each batch it applies. */
  batches?: number[];
  lingerMs?: number;
  filterSubject?: string;
  /** Its own connection (to close under it, as a kill -9 would), else the suite's. */
  nc?: NatsConnection;
  ackWaitMs?: number;
  /** Called as apply() starts on an event, before it is recorded; a rejection fails the apply. */
  entered?: (e: ConsumedEvent) => Promise<void> | void;
}

/**
 * What the EventConsumer tests run on: a fresh database with the consumer's, the outbox's and an
 * `applied` table (each apply records its event there), a NATS connection and an events stream of
 * their own. start() in beforeAll, stop() in afterAll.
 */
export class ConsumerHarness {
  db!: TestDatabase;
  orm!: Orm;
  nc!: NatsConnection;
  jsm!: JetStreamManager;
  prefix!: string;

  constructor(private readonly dbPrefix: string) {}

  start = async (): Promise<void> => {
    this.db = await freshDatabase(this.dbPrefix);
    this.orm = await openOrm({
      url: this.db.url,
      schema: 'consumer_it',
      entities: [],
      migrations: [
        ...CONSUMER_MIGRATIONS,
        ...OUTBOX_DDL.map((d) => ({ name: `Outbox_v${d.version}`, class: ddlMigration(d.sql) })),
        { name: 'Applied', class: ddlMigration('CREATE TABLE applied (consumer text NOT NULL, event_id uuid NOT NULL, seq bigint NOT NULL)') },
      ],
      poolMax: 4,
    });
    await migrate(this.orm);
    this.nc = await connect({ servers: NATS_URL });
    this.prefix = uniquePrefix();
    this.jsm = await ensureEventsStream(this.nc, this.prefix, { duplicateWindowMs: WINDOW_MS });
  };

  stop = async (): Promise<void> => {
    await this.jsm.streams.delete(eventsStreamName(this.prefix)).catch(() => undefined);
    await this.nc.drain();
    await this.orm.close(true);
    await this.db.drop();
  };

  sql = (q: string, params: unknown[] = []) => this.orm.em.getConnection().execute(q, params);
  subject = () => `${this.prefix}.events.outbound.invoice.posted`;

  /** An EventConsumer on the suite's stream whose apply (or applyBatch) records each event in `applied`. */
  consumer = (name: string, over: TestConsumerOptions = {}) => {
    const metrics = createMetrics('test', false);
    const batches = over.batches;
    const c = new EventConsumer({
      nc: over.nc ?? this.nc,
      prefix: this.prefix,
      ackWaitMs: over.ackWaitMs,
      orm: this.orm,
      log: silentLogger(),
      name,
      filterSubject: over.filterSubject ?? `${this.prefix}.events.>`,
      metrics,
      retryDelayMs: 50,
      maxDeliveries: over.maxDeliveries,
      refuse: over.refuse,
      skip: over.skip,
      lingerMs: over.lingerMs,
      apply: async (em, e) => {
        await over.entered?.(e);
        if (over.fail?.(e)) throw new Error('projection failed');
        await em.execute('INSERT INTO applied (consumer, event_id, seq) VALUES (?, ?, ?)', [name, e.id, e.seq]);
      },
      applyBatch: batches
        ? async (em, events) => {
            if (events.some((e) => over.fail?.(e))) throw new Error('projection failed');
            batches.push(events.length);
            await em.execute(
              `INSERT INTO applied (consumer, event_id, seq) VALUES ${events.map(() => '(?, ?, ?)').join(', ')}`,
              events.flatMap((e) => [name, e.id, e.seq]),
            );
          }
        : undefined,
    });
    return { c, metrics };
  };

  /** How many times the consumer applied each of ids (ids it never applied are missing). */
  appliedCounts = async (name: string, ids: string[]) =>
    (await this.sql(`SELECT event_id, count(*)::int AS n FROM applied WHERE consumer = ? AND event_id = ANY(?::uuid[]) GROUP BY event_id`, [name, `{${ids.join(',')}}`])) as {
      event_id: string;
      n: number;
    }[];

  /** Waits until the consumer has acked the whole stream. */
  ackedAll = (name: string) =>
    waitFor(async () => {
      const info = await this.jsm.consumers.info(eventsStreamName(this.prefix), name);
      const stream = await this.jsm.streams.info(eventsStreamName(this.prefix));
      return info.num_pending === 0 && info.num_ack_pending === 0 && info.delivered.stream_seq === stream.state.last_seq;
    }, 15_000);

  /** Commits n outbox rows and publishes them as the services do. */
  commitAndPublish = async (outbox: Outbox, n: number): Promise<string[]> => {
    const msgs = Array.from({ length: n }, () => {
      const id = randomUUID();
      return { id, subject: this.subject(), payload: { id, type: 'invoice.posted', data: { n } } };
    });
    await this.orm.em.fork().transactional((em) => outbox.add(em, msgs));
    await outbox.publish(msgs);
    await outbox.flushMarks();
    return msgs.map((m) => m.id);
  };

  /** Publishes events straight to the stream, each id as often as given (copies are stored: other message ids). */
  publishCopies = async (ids: string[]): Promise<number[]> => {
    const js = this.nc.jetstream();
    const seqs: number[] = [];
    for (const id of ids) seqs.push((await js.publish(this.subject(), new TextEncoder().encode(JSON.stringify({ id, type: 'invoice.posted' })))).seq);
    return seqs;
  };
}

/** The consumer's events_consumed_total by outcome. */
export const consumedOutcomes = async (metrics: ReturnType<typeof createMetrics>): Promise<Record<string, number>> =>
  Object.fromEntries((await metrics.eventsConsumed.get()).values.map((v): [string, number] => [String(v.labels.outcome), v.value]));

/** A promise and the function that resolves it. */
export function signal<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
