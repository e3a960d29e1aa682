import { AckPolicy, type ConsumerMessages, DeliverPolicy, type JsMsg, type NatsConnection } from 'nats';
import type { Counter } from 'prom-client';
import { eventsStreamName } from '@acct/contracts';
import { type EntityManager, type MigrationDef, type Orm, ddlMigration } from './db';
import type { Logger } from './logger';
import type { ServiceMetrics } from './metrics';
import { decodeJson } from './rpc';
import { isBackendUnavailable, logRetriedFailure } from './unavailable';

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
}

const NS_PER_MS = 1_000_000;
/** Most events applied in one transaction (those already received when the first is taken). */
const BATCH_MAX = 64;

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
          queue.push(m);
          wakeApplier?.();
          while (queue.length >= 2 * BATCH_MAX) await new Promise<void>((r) => (wakeReader = r));
        }
      } finally {
        done = true;
        wakeApplier?.();
      }
    })();
    this.loop = (async () => {
      for (;;) {
        if (queue.length === 0) {
          if (done) break;
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
    try {
      fresh = await this.o.orm.em.fork().transactional(async (em) => {
        const out: boolean[] = [];
        for (const { event } of events) {
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
      for (const m of batch) await this.handle(m);
      return;
    }
    events.forEach(({ m }, i) => this.acked(m, fresh[i]!));
    for (const m of single) await this.handle(m);
  }

  private acked(m: JsMsg, fresh: boolean): void {
    const { name } = this.o;
    m.ack();
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
      const fresh = await this.o.orm.em.fork().transactional(async (em) => {
        if (!(await claimEvent(em, name, event.id, event.seq))) return false;
        await this.o.apply(em, event);
        return true;
      });
      this.acked(m, fresh);
    } catch (err) {
      const deliveries = m.info.deliveryCount;
      if (isBackendUnavailable(err)) {
        // Postgres is down or restarting: the event is fine, so it never counts towards parking
        // (an outage longer than maxDeliveries retries would otherwise park good events).
        logRetriedFailure(log, err, { consumer: name, event_id: event.id, seq: event.seq, deliveries }, 'applying an event failed; it will be redelivered');
        this.applied?.inc({ consumer: name, outcome: 'failed' });
        m.nak(this.o.retryDelayMs ?? 1000);
        return;
      }
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
      logRetriedFailure(this.o.log, e, { consumer: this.o.name, seq: event.seq }, 'could not park an event');
      return false;
    }
  }

  /** Stops taking messages and waits for the one being applied. */
  async stop(): Promise<void> {
    if (!this.messages) return;
    this.o.metrics?.pendingReaders.delete(this.o.name);
    await this.messages.close().catch(() => undefined);
    await this.loop;
    this.messages = undefined;
  }
}
