import { AckPolicy, type ConsumerMessages, DeliverPolicy, type JsMsg, type NatsConnection } from 'nats';
import type { Counter } from 'prom-client';
import { eventsStreamName } from '@acct/contracts';
import { lockPartitions, retryOnConflict } from './conflicts';
import { type EntityManager, type MigrationDef, type Orm, ddlMigration } from './db';
import type { Logger } from './logger';
import type { ServiceMetrics } from './metrics';
import { decodeJson } from './rpc';

/**
 * Version 1 of the table where a consumer records the events it applied. FROZEN: add a version to
 * CONSUMED_DDL to change it (a test holds the checksums).
 */
const CONSUMED_DDL_V1 = `
  CREATE TABLE consumed_events (
    consumer text NOT NULL,
    event_id uuid NOT NULL,
    stream_seq bigint NOT NULL,
    consumed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, event_id)
  );
`;

/** Version 2: events that kept failing are parked here (skipped, counted, kept for an operator). FROZEN. */
const CONSUMED_DDL_V2 = `
  CREATE TABLE parked_events (
    consumer text NOT NULL,
    event_id text NOT NULL,
    stream_seq bigint NOT NULL,
    subject text NOT NULL,
    payload jsonb,
    error text NOT NULL,
    deliveries integer NOT NULL,
    parked_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, stream_seq)
  );
`;

export const CONSUMED_DDL: readonly { version: number; sql: string }[] = Object.freeze([
  { version: 1, sql: CONSUMED_DDL_V1 },
  { version: 2, sql: CONSUMED_DDL_V2 },
]);

/** The migrations every consuming service runs first (its consumed_events table). */
export const CONSUMER_MIGRATIONS: readonly MigrationDef[] = Object.freeze(CONSUMED_DDL.map((d) => ({ name: `Consumer_Consumed_v${d.version}`, class: ddlMigration(d.sql) })));

/**
 * Claims an event for a consumer inside the caller's transaction: true the first time, false for a
 * copy (redelivery, or a second publish after an outage longer than the stream's dedupe window).
 */
export async function claimEvent(em: EntityManager, consumer: string, eventId: string, streamSeq: number): Promise<boolean> {
  const rows = await em.execute(
    `INSERT INTO consumed_events (consumer, event_id, stream_seq) VALUES (?, ?, ?) ON CONFLICT (consumer, event_id) DO NOTHING RETURNING 1 AS claimed`,
    [consumer, eventId, streamSeq],
  );
  return rows.length > 0;
}

/** An event as the consumer's apply() sees it. */
export interface ConsumedEvent {
  id: string;
  subject: string;
  /** The stream sequence (for read-your-writes: "applied up to"). */
  seq: number;
  payload: Record<string, unknown> & { id: string; type?: string };
}

export interface EventConsumerOptions {
  nc: NatsConnection;
  prefix: string;
  orm: Orm;
  log: Logger;
  /** Durable name (CONSUMERS in libs/contracts); also the consumer column of consumed_events. */
  name: string;
  /** Subject filter within the stream, e.g. `<prefix>.events.>`. */
  filterSubject: string;
  /** Applies one event in the consumer's transaction; throwing rolls it back and redelivers later. */
  apply: (em: EntityManager, event: ConsumedEvent) => Promise<void>;
  metrics?: ServiceMetrics;
  /** Redelivery delay after a failed apply. */
  retryDelayMs?: number;
  /** How long the server waits for an ack before redelivering. */
  ackWaitMs?: number;
  /**
   * Deliveries of a failing event before it is parked (parked_events, outcome "parked", terminated
   * on the server) instead of retried forever; default 5. A parked event is never applied.
   */
  maxDeliveries?: number;
  /**
   * The partition an event belongs to (e.g. its organization), when replicas must not apply two
   * events of one partition at once: each apply transaction first takes an advisory lock per
   * partition of its events, in one sorted order, so replicas wait for each other, never deadlock.
   */
  partitionOf?: (event: ConsumedEvent) => string | undefined;
  /** On stop(), how long to wait for the batch being applied before abandoning it (redelivered). */
  stopGraceMs?: number;
}

/** One start()–stop() of a consumer: stop() sets stopping; backend is the Postgres process of the apply transaction in flight. */
interface Run {
  stopping: boolean;
  wake: () => void;
  backend?: number;
}

const NS_PER_MS = 1_000_000;
/** Most events applied in one transaction (those already received when the first is taken). */
const BATCH_MAX = 64;

/** Acks or naks a message; after stop() the connection may be closing, and the server redelivers what it did not hear of. */
const settle =
  (how: 'ack' | 'nak') =>
  (m: JsMsg): void => {
    try {
      m[how]();
    } catch {
      // redelivered after ack_wait
    }
  };

/** The event a message holds, or undefined when it is not one of ours. */
function tryDecode(m: JsMsg): ConsumedEvent['payload'] | undefined {
  try {
    const payload = decodeJson<ConsumedEvent['payload']>(m.data);
    return typeof payload?.id === 'string' ? payload : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A durable JetStream consumer that applies each event exactly once to its own Postgres schema:
 * claim (unique on event id) and apply in one transaction, ack after commit. Redelivery, duplicate
 * copies in the stream and restarts change nothing; a failing event is retried, never skipped.
 */
export class EventConsumer {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  /** Set by stop(): the loops of this run hand back what they hold and end. */
  private run: Run = { stopping: false, wake: () => undefined };
  private readonly applied?: Counter<'consumer' | 'outcome'>;

  constructor(private readonly o: EventConsumerOptions) {
    this.applied = o.metrics?.eventsConsumed;
  }

  /** Creates the durable consumer if missing and starts applying; resolves once it is consuming. */
  async start(): Promise<void> {
    const { nc, prefix, name } = this.o;
    const stream = eventsStreamName(prefix);
    const jsm = await nc.jetstreamManager();
    const config = {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: this.o.filterSubject,
      ack_wait: (this.o.ackWaitMs ?? 30_000) * NS_PER_MS,
      max_deliver: -1,
    };
    try {
      await jsm.consumers.info(stream, name);
    } catch {
      await jsm.consumers.add(stream, config).catch(async (e) => {
        // Another replica created it in between.
        await jsm.consumers.info(stream, name).catch(() => {
          throw e;
        });
      });
    }
    // Backlog at scrape time: delivered-but-unacknowledged plus not yet delivered.
    this.o.metrics?.pendingReaders.set(name, async () => {
      const info = await jsm.consumers.info(stream, name);
      return info.num_pending + info.num_ack_pending;
    });
    const consumer = await nc.jetstream().consumers.get(stream, name);
    const run: Run = (this.run = { stopping: false, wake: () => undefined });
    this.messages = await consumer.consume({ max_messages: 64 });
    const messages = this.messages;
    // The reader queues what the server delivers (at most 2 × BATCH_MAX ahead); the applier takes
    // everything queued (up to BATCH_MAX) into one transaction.
    const queue: JsMsg[] = [];
    let done = false;
    let wakeApplier: (() => void) | undefined;
    let wakeReader: (() => void) | undefined;
    const reader = (async () => {
      try {
        for await (const m of messages) {
          if (run.stopping) {
            settle('nak')(m); // delivered after stop(): to another replica now
            continue;
          }
          queue.push(m);
          wakeApplier?.();
          while (queue.length >= 2 * BATCH_MAX && !run.stopping) await new Promise<void>((r) => (wakeReader = r));
        }
      } finally {
        done = true;
        wakeApplier?.();
      }
    })();
    run.wake = () => {
      wakeApplier?.();
      wakeReader?.();
    };
    this.loop = (async () => {
      for (;;) {
        if (run.stopping) {
          // Stopping: what was received and not taken is handed back for redelivery at once.
          queue.splice(0).forEach(settle('nak'));
          wakeReader?.();
          if (done) break;
        }
        if (queue.length === 0) {
          if (done) break;
          if (run.stopping) break;
          await new Promise<void>((r) => (wakeApplier = r));
          wakeApplier = undefined;
          continue;
        }
        const batch = queue.splice(0, BATCH_MAX);
        wakeReader?.();
        wakeReader = undefined;
        await this.handleBatch(batch);
      }
      await reader;
    })().catch((err) => this.o.log.error({ err, consumer: name }, 'event consumer stopped'));
  }

  /**
   * Claims and applies the events of several messages in one transaction and acks them after its
   * commit; if any of them fails, the transaction rolls back and each is handled alone (so a poison
   * event is retried and parked on its own, and never fails its neighbours).
   */
  private async handleBatch(batch: JsMsg[]): Promise<void> {
    if (batch.length === 1) return this.handle(batch[0]!);
    const { name } = this.o;
    const events: { m: JsMsg; event: ConsumedEvent }[] = [];
    const single: JsMsg[] = [];
    for (const m of batch) {
      const payload = tryDecode(m);
      if (payload) events.push({ m, event: { id: payload.id, subject: m.subject, seq: m.seq, payload } });
      else single.push(m); // handle() drops it, counted
    }
    let fresh: boolean[] | undefined;
    const list = events.map((e) => e.event);
    const run = this.run;
    try {
      fresh = await this.transaction(list, async (em) => {
        const out: boolean[] = [];
        for (const { event } of events) {
          if (run.stopping) throw new Error('consumer stopping: batch abandoned'); // rolled back, handed back below
          const claimed = await claimEvent(em, name, event.id, event.seq);
          if (claimed) await this.o.apply(em, event);
          out.push(claimed);
        }
        return out;
      });
    } catch {
      fresh = undefined;
    }
    if (!fresh) {
      if (run.stopping) return batch.forEach(settle('nak')); // redelivered, to be handled after the restart or by another replica
      for (const m of batch) await this.handle(m);
      return;
    }
    events.forEach(({ m }, i) => this.acked(m, fresh[i]!));
    for (const m of single) await this.handle(m);
  }

  /**
   * One apply transaction: the partition locks of its events first (partitionOf), then body; run
   * again on a deadlock or serialization failure (counted in events_consumer_conflicts_total, not
   * a failure: the retry applies the same events).
   */
  private transaction<T>(events: ConsumedEvent[], body: (em: EntityManager) => Promise<T>): Promise<T> {
    const { name, partitionOf } = this.o;
    const run = this.run;
    const keys = partitionOf ? events.flatMap((e) => partitionOf(e) ?? []).map((k) => `${name} ${k}`) : [];
    return retryOnConflict(
      () =>
        this.o.orm.em
          .fork()
          .transactional(async (em) => {
            // Known to stop(), which cancels the transaction when it outlasts the grace (waiting on a lock, say).
            run.backend = Number((await em.execute<{ pid: number }[]>(`SELECT pg_backend_pid() AS pid`))[0]?.pid);
            await lockPartitions(em, keys);
            return body(em);
          })
          .finally(() => (run.backend = undefined)),
      (code, attempt) => {
        this.o.metrics?.consumerConflicts.inc({ consumer: name, code });
        this.o.log.debug({ consumer: name, code, attempt }, 'apply transaction conflicted with another replica; retrying');
      },
    );
  }

  private acked(m: JsMsg, fresh: boolean): void {
    const { name } = this.o;
    settle('ack')(m);
    this.applied?.inc({ consumer: name, outcome: fresh ? 'applied' : 'duplicate' });
    if (fresh) this.o.metrics?.consumerLag.observe({ consumer: name }, Math.max(0, Date.now() - m.info.timestampNanos / NS_PER_MS) / 1000);
  }

  private async handle(m: JsMsg): Promise<void> {
    const { name, log } = this.o;
    let payload: ConsumedEvent['payload'];
    try {
      payload = decodeJson<ConsumedEvent['payload']>(m.data);
      if (typeof payload?.id !== 'string') throw new Error('no event id');
    } catch (err) {
      // Not an event of ours: never applicable, so it must not block the consumer.
      log.error({ err, consumer: name, subject: m.subject, seq: m.seq }, 'malformed event dropped');
      this.applied?.inc({ consumer: name, outcome: 'malformed' });
      m.term();
      return;
    }
    const event: ConsumedEvent = { id: payload.id, subject: m.subject, seq: m.seq, payload };
    try {
      const fresh = await this.transaction([event], async (em) => {
        if (!(await claimEvent(em, name, event.id, event.seq))) return false;
        await this.o.apply(em, event);
        return true;
      });
      this.acked(m, fresh);
    } catch (err) {
      const deliveries = m.info.deliveryCount;
      if (deliveries >= (this.o.maxDeliveries ?? 5) && (await this.park(event, deliveries, err))) {
        log.error({ err, consumer: name, event_id: event.id, seq: event.seq, deliveries }, 'event parked after repeated failures');
        this.applied?.inc({ consumer: name, outcome: 'parked' });
        m.term();
        return;
      }
      log.warn({ err, consumer: name, event_id: event.id, seq: event.seq }, 'applying an event failed; it will be redelivered');
      this.applied?.inc({ consumer: name, outcome: 'failed' });
      m.nak(this.o.retryDelayMs ?? 1000);
    }
  }

  /** Records a poison event; false if even that failed (then it is redelivered as usual). */
  private async park(event: ConsumedEvent, deliveries: number, err: unknown): Promise<boolean> {
    try {
      await this.o.orm.em
        .fork()
        .getConnection()
        .execute(`INSERT INTO parked_events (consumer, event_id, stream_seq, subject, payload, error, deliveries) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, [
          this.o.name,
          event.id,
          event.seq,
          event.subject,
          JSON.stringify(event.payload),
          String((err as Error)?.message ?? err).slice(0, 2000),
          deliveries,
        ]);
      return true;
    } catch (e) {
      this.o.log.error({ err: e, consumer: this.o.name, seq: event.seq }, 'could not park an event');
      return false;
    }
  }

  /**
   * Stops pulling, hands back (nak) what was received and not yet taken, and waits for the batch
   * being applied at most stopGraceMs (default 100): a batch still running then is cancelled, and
   * its messages, unacknowledged, are redelivered and applied once (the claim makes a committed
   * one a duplicate).
   */
  async stop(): Promise<void> {
    if (!this.messages) return;
    this.run.stopping = true;
    this.run.wake();
    this.o.metrics?.pendingReaders.delete(this.o.name);
    const run = this.run;
    const ended = Promise.all([this.messages.close().catch(() => undefined), this.loop]).then(() => true);
    const within = (ms: number) => Promise.race([ended, new Promise<false>((r) => setTimeout(() => r(false), ms).unref())]);
    if (!(await within(this.o.stopGraceMs ?? 100)) && run.backend !== undefined) {
      // Abandon the batch: cancel its transaction (rolled back; its messages are handed back).
      await this.o.orm.em
        .fork()
        .getConnection()
        .execute(`SELECT pg_cancel_backend(?)`, [run.backend])
        .catch(() => undefined);
      await within(300);
    }
    this.messages = undefined;
  }
}
