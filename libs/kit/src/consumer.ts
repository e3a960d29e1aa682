import { AckPolicy, type ConsumerInfo, type ConsumerMessages, DeliverPolicy, type JsMsg, type NatsConnection, type Subscription } from 'nats';
import type { Counter } from 'prom-client';
import { type ParkReason, type ParkedEventView, type ParkedEventsReply, type ParkedEventsRequest, eventsStreamName, isConsumerName, parkedEventsSubject } from '@acct/contracts';
import { retryOnConflict } from './conflicts';
import { type EntityManager, type MigrationDef, type Orm, ddlMigration } from './db';
import { statement, transactionQuery } from './sql';
import type { Logger } from './logger';
import { retryJetStreamSetup } from './jetstream-setup';
import type { ServiceMetrics } from './metrics';
import { ensureEventsStream } from './outbox';
import { decodeJson, encodeJson } from './rpc';
import type { Worker } from './service';
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

/**
 * Version 3: every message a consumer cannot apply is parked, not only the events that kept failing:
 * why (reason), the message as received (raw: a malformed one has no event id and no JSON), and the
 * operator's discard (kept, so that a rebuild replaying the stream does not park it again). FROZEN.
 */
const CONSUMED_DDL_V3 = `
  ALTER TABLE parked_events
    ALTER COLUMN event_id DROP NOT NULL,
    ADD COLUMN reason text NOT NULL DEFAULT 'failed' CHECK (reason IN ('malformed', 'refused', 'failed')),
    ADD COLUMN raw bytea,
    ADD COLUMN discarded_at timestamptz;
  CREATE INDEX parked_events_open ON parked_events (consumer) WHERE discarded_at IS NULL;
`;

export const CONSUMED_DDL: readonly { version: number; sql: string }[] = Object.freeze([
  { version: 1, sql: CONSUMED_DDL_V1 },
  { version: 2, sql: CONSUMED_DDL_V2 },
  { version: 3, sql: CONSUMED_DDL_V3 },
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

// Named: every event a consumer applies is claimed by it (bench create-bill, post-invoice: reporting).
// Sorted by event id, so two transactions claiming overlapping events wait in one order.
const CLAIM_EVENTS = statement(
  'consumer_claim_events',
  `INSERT INTO consumed_events (consumer, event_id, stream_seq)
   SELECT ?, t.event_id, t.stream_seq FROM unnest(?::uuid[], ?::bigint[]) AS t (event_id, stream_seq) ORDER BY t.event_id
   ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id::text AS event_id`,
);

/**
 * Claims the events of a batch for a consumer in one statement, inside the caller's transaction:
 * for each event in order, true when it is claimed now (the first time), false for a copy (claimed
 * before, or an earlier event of the batch with the same id). An id that is not a uuid fails it.
 */
export async function claimEvents(em: EntityManager, consumer: string, events: readonly { id: string; seq: number }[]): Promise<boolean[]> {
  const first = new Map<string, { id: string; seq: number }>();
  for (const e of events) if (!first.has(e.id.toLowerCase())) first.set(e.id.toLowerCase(), e);
  if (first.size === 0) return [];
  const q = await transactionQuery(em);
  const rows = await q<{ event_id: string }>(CLAIM_EVENTS, [consumer, [...first.values()].map((e) => e.id), [...first.values()].map((e) => e.seq)]);
  const claimed = new Set(rows.map((r) => r.event_id.toLowerCase()));
  return events.map((e) => {
    const key = e.id.toLowerCase();
    return first.get(key) === e && claimed.has(key);
  });
}

// Named: one per apply transaction of every consumer (reporting's, per pulled batch). The keys come
// sorted; unnest() returns them in that order and each lock is taken as its row is produced.
const LOCK_PARTITIONS = statement(
  'consumer_lock_partitions',
  'SELECT pg_backend_pid() AS pid, count(*) AS locked FROM (SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest(?::text[]) WITH ORDINALITY AS t (k, n) ORDER BY n) AS l',
);

/**
 * Takes a transaction-scoped advisory lock per partition key (e.g. an organization), in one
 * global order (sorted, deduplicated), so two transactions that share keys wait for each other
 * instead of deadlocking on the rows those keys own. Released at commit or rollback. One statement
 * for all the keys, which also returns the transaction's backend pid (for stop()'s cancel).
 */
export async function lockPartitions(em: EntityManager, keys: Iterable<string>): Promise<number> {
  const q = await transactionQuery(em);
  const rows = await q<{ pid: number }>(LOCK_PARTITIONS, [[...new Set(keys)].sort()]);
  return Number(rows[0]?.pid);
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
  /**
   * Optional: applies the events of a batch claimed fresh (in stream order, none claimed before) at
   * once, set-based, in the consumer's transaction. Its effects must be those of apply() run on
   * each of them in turn. Without it each is applied by apply(). Throwing rolls the whole batch back
   * and each event is then handled alone (a poison event is retried and parked on its own).
   */
  applyBatch?: (em: EntityManager, events: ConsumedEvent[]) => Promise<void>;
  /**
   * Why an event must never be applied (it breaks a rule its publisher enforces), or undefined. A
   * refused event is parked at once (reason "refused", outcome "refused"), never claimed nor applied.
   */
  refuse?: (event: ConsumedEvent) => string | undefined;
  /**
   * Which events of a batch would change nothing if applied (e.g. no one subscribes to them), decided
   * before any transaction, once per batch: true skips that event, acked unclaimed and never applied
   * (outcome "skipped"). Only for a consumer whose apply is a no-op for such an event whenever it is
   * applied, so a copy of it may be skipped too: nothing to claim. Throwing skips none of them.
   */
  skip?: (events: ConsumedEvent[]) => Promise<boolean[]>;
  metrics?: ServiceMetrics;
  /** Redelivery delay after a failed apply. */
  retryDelayMs?: number;
  /**
   * How long the server waits for an ack before redelivering (default DEFAULT_ACK_WAIT_MS); set on
   * the durable at every start, so a changed value reaches one made before.
   */
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
  /**
   * How long a batch that is not full waits for more events before it is applied (default 0: at
   * once). A busy stream's events then share one pull, claim, transaction and ack round instead of
   * each taking its own, at the cost of that much delay; stop() does not wait for it.
   */
  lingerMs?: number;
}

/** One start()–stop() of a consumer: stop() sets stopping; backend is the Postgres process of the apply transaction in flight. */
interface Run {
  stopping: boolean;
  /** The stream sequence hurry() asked for: a queued event at or below it is applied without lingering. */
  hurryTo: number;
  /** Whether the queue holds such an event (or hurry() came with nothing queued at or below it yet). */
  hurried: boolean;
  wake: () => void;
  /** What the reader received and the applier has not taken yet. */
  queue: readonly JsMsg[];
  /** The batch the applier is handling. */
  applying: readonly JsMsg[];
  backend?: number;
}

const NS_PER_MS = 1_000_000;

interface ParkArgs {
  reason: ParkReason;
  error: string;
  eventId: string | null;
  payload: unknown;
}
/** Most events applied in one transaction (those already received when the first is taken). */
const BATCH_MAX = 128;

/**
 * The lingerMs of the consumers that apply every event of a busy stream (reporting's projection, the
 * webhook dispatcher). Against 10 ms, 25 ms took reporting's CPU per post from 0.362 to 0.295 ms and
 * its statements per post from 0.68 to 0.39; 50 ms (with BATCH_MAX 128 against 64) took them from
 * 0.557 to 0.400 ms and 0.47 to 0.27, and the dispatcher's from 0.253 to 0.180 ms (bench:compare,
 * post-invoice, medians of 4). A posting reaches the projection up to 50 ms later; a report waiting
 * for it cuts that short on its replica (hurry()). deploy/README tells operators this floor of
 * events_consumer_lag_seconds.
 */
export const BATCH_LINGER_MS = 50;

/**
 * How long each pull request waits on the server (nats.js: idle heartbeats every half of it, and a
 * fresh pull after two missed). When the durable goes (a rebuild on another replica deletes and
 * makes it again), the pull requests waiting on it go too, and nats.js, which still counts them,
 * pulls again only after those missed heartbeats: with its default of 30 s, a replica took in
 * nothing for ~30 s after a rebuild (and, were the other replica stopped meanwhile, the projection
 * stood still as long). 5 s: back in 7.3 s (consumer.int), for one pull request per 5 s when idle.
 */
const PULL_EXPIRES_MS = 5_000;

/**
 * The default ack wait: a message delivered to a replica that dies (kill -9, a lost node) goes to
 * another this long after, and reporting's reads, which wait for every event to be acked, answer
 * 503 meanwhile (30 s with the server's default). A live consumer never lets it expire: it says
 * it is working (+WPI) on every message it holds, received or being applied, every third of it.
 */
export const DEFAULT_ACK_WAIT_MS = 5_000;

/** Acks, naks or extends (working) a message; after stop() the connection may be closing, and the server redelivers what it did not hear of. */
const settle =
  (how: 'ack' | 'nak' | 'working') =>
  (m: JsMsg): void => {
    try {
      m[how]();
    } catch {
      // redelivered after ack_wait
    }
  };

/** The event a message holds, or why it is not one (not JSON, not an object with a string id). */
function decodeEvent(m: { data: Uint8Array }): { payload: ConsumedEvent['payload'] } | { malformed: string } {
  let payload: ConsumedEvent['payload'];
  try {
    payload = decodeJson<ConsumedEvent['payload']>(m.data);
  } catch (e) {
    return { malformed: `not JSON: ${(e as Error).message}` };
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return { malformed: 'not a JSON object' };
  if (typeof payload.id !== 'string' || payload.id === '') return { malformed: 'no event id (a string "id")' };
  return { payload };
}

/** A delivered message as examined: not an event (why), or the event and why `refuse` refuses it. */
type Examined = { malformed: string } | { event: ConsumedEvent; refused: string | undefined };

interface ParkedRow {
  consumer: string;
  event_id: string | null;
  stream_seq: string | number;
  subject: string;
  payload: unknown;
  raw: Buffer | null;
  reason: ParkReason;
  error: string;
  deliveries: number;
  parked_at: Date | string;
  discarded_at: Date | string | null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

function viewOf(r: ParkedRow, withRaw: boolean): ParkedEventView {
  const view: ParkedEventView = {
    id: `${r.consumer}/${r.stream_seq}`,
    consumer: r.consumer,
    stream_seq: Number(r.stream_seq),
    subject: r.subject,
    event_id: r.event_id,
    reason: r.reason,
    error: r.error,
    deliveries: r.deliveries,
    parked_at: iso(r.parked_at)!,
    discarded_at: iso(r.discarded_at),
  };
  if (withRaw) {
    const raw = rawOf(r);
    view.raw_base64 = raw ? Buffer.from(raw).toString('base64') : null;
    try {
      view.raw_text = raw ? utf8.decode(raw) : null;
    } catch {
      view.raw_text = null;
    }
  }
  return view;
}

/** The message as received; rows parked before raw was kept (version 2) have only their payload. */
function rawOf(r: ParkedRow): Uint8Array | null {
  if (r.raw) return r.raw;
  return r.payload == null ? null : encodeJson(r.payload);
}

/** The payload as jsonb takes it; null when it cannot (jsonb refuses \u0000): the raw bytes keep it anyway. */
function jsonbText(payload: unknown): string | null {
  if (payload === null || payload === undefined) return null;
  const text = JSON.stringify(payload);
  return text.includes('\\u0000') ? null : text;
}

/** A parked-events command that cannot be done (unknown seq, still refused): the operator is told why. */
export class ParkedEventError extends Error {}

/**
 * A durable JetStream consumer that applies each event exactly once to its own Postgres schema:
 * claim (unique on event id) and apply in one transaction, ack after commit. Redelivery, duplicate
 * copies in the stream and restarts change nothing; a failing event is retried, then parked after
 * maxDeliveries. A message that is no event (malformed) or that `refuse` refuses is parked at once
 * with its raw bytes, never applied; the operator lists, shows, retries and discards parked
 * messages (serveAdmin, for the consumers of CONSUMERS), and events_parked_messages counts them.
 */
export class EventConsumer {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  /** Set by stop(): the loops of this run hand back what they hold and end. */
  private run: Run = { stopping: false, hurryTo: 0, hurried: false, wake: () => undefined, queue: [], applying: [] };
  private readonly applied?: Counter<'consumer' | 'outcome'>;
  private admin?: Subscription;
  /** examine()'s answers, dropped with their messages. */
  private readonly examined = new WeakMap<JsMsg, Examined>();

  constructor(private readonly o: EventConsumerOptions) {
    this.applied = o.metrics?.eventsConsumed;
  }

  /** Creates the durable consumer if missing and starts applying; resolves once it is consuming. */
  async start(): Promise<void> {
    const { nc, prefix, name } = this.o;
    const stream = eventsStreamName(prefix);
    const retry = <T>(what: string, fn: () => Promise<T>) => retryJetStreamSetup(`${what} (consumer ${name})`, fn, { log: this.o.log });
    const jsm = await retry('jetstream manager', () => nc.jetstreamManager());
    const ackWaitMs = this.o.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    const config = {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: this.o.filterSubject,
      ack_wait: ackWaitMs * NS_PER_MS,
      max_deliver: -1,
    };
    await retry('durable consumer setup', async () => {
      let existing: ConsumerInfo;
      try {
        existing = await jsm.consumers.info(stream, name);
      } catch {
        await jsm.consumers.add(stream, config).catch(async (e) => {
          // Another replica created it in between.
          await jsm.consumers.info(stream, name).catch(() => {
            throw e;
          });
        });
        return;
      }
      // A durable made before with another ack wait (the 30 s of earlier versions) takes this one.
      if (existing.config.ack_wait !== config.ack_wait) await jsm.consumers.update(stream, name, { ack_wait: config.ack_wait });
    });
    // Backlog at scrape time: delivered-but-unacknowledged plus not yet delivered.
    this.o.metrics?.pendingReaders.set(name, async () => {
      const info = await jsm.consumers.info(stream, name);
      return info.num_pending + info.num_ack_pending;
    });
    // Parked messages not yet discarded, at scrape time.
    this.o.metrics?.parkedReaders.set(name, async () => {
      const [row] = await this.o.orm.em
        .fork()
        .getConnection()
        .execute<{ n: number }[]>(`SELECT count(*)::int AS n FROM parked_events WHERE consumer = ? AND discarded_at IS NULL`, [name]);
      return Number(row?.n ?? 0);
    });
    if (isConsumerName(name) && !this.admin) this.admin = this.serveAdmin(parkedEventsSubject(prefix, name));
    const consumer = await retry('durable consumer lookup', () => nc.jetstream().consumers.get(stream, name));
    // The reader queues what the server delivers (at most 2 × BATCH_MAX ahead); the applier takes
    // everything queued (up to BATCH_MAX) into one transaction.
    const queue: JsMsg[] = [];
    const run: Run = (this.run = { stopping: false, hurryTo: 0, hurried: false, wake: () => undefined, queue, applying: [] });
    this.messages = await consumer.consume({ max_messages: BATCH_MAX, expires: PULL_EXPIRES_MS });
    const messages = this.messages;
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
          if (m.seq <= run.hurryTo) run.hurried = true;
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
    // Held messages stay this replica's while it lives (and its loop runs), however long a batch lingers or takes.
    const heartbeat = setInterval(() => [...run.queue, ...run.applying].forEach(settle('working')), Math.max(ackWaitMs / 3, 50)).unref();
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
        if (this.o.lingerMs && queue.length < BATCH_MAX && !done && !run.hurried) {
          await this.linger(
            () => queue.length >= BATCH_MAX || run.stopping || done || run.hurried,
            (w) => (wakeApplier = w),
          );
        }
        wakeApplier = undefined;
        const batch = queue.splice(0, BATCH_MAX);
        run.hurried = queue.some((m) => m.seq <= run.hurryTo);
        wakeReader?.();
        wakeReader = undefined;
        run.applying = batch;
        await this.handleBatch(batch).finally(() => (run.applying = []));
      }
      await reader;
    })()
      .catch((err) => this.o.log.error({ err, consumer: name }, 'event consumer stopped'))
      .finally(() => clearInterval(heartbeat));
  }

  /**
   * Waits lingerMs, or less once `enough` (a full batch queued, the consumer stopping, the reader
   * done): the reader and stop() call the waker `onWake` installs.
   */
  private linger(enough: () => boolean, onWake: (wake: () => void) => void): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.o.lingerMs);
      onWake(() => {
        if (!enough()) return;
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Claims the events of several messages (one statement) and applies those claimed fresh (by
   * applyBatch at once, or one by one) in one transaction, and acks them after its commit; if any
   * of them fails, the transaction rolls back and each is handled alone (so a poison event is
   * retried and parked on its own, and never fails its neighbours).
   */
  private async handleBatch(received: JsMsg[]): Promise<void> {
    const batch = this.o.skip ? await this.skipNoOps(received) : received;
    if (batch.length === 0) return;
    if (batch.length === 1) return this.handle(batch[0]!);
    const { name } = this.o;
    const events: { m: JsMsg; event: ConsumedEvent }[] = [];
    const single: JsMsg[] = [];
    for (const m of batch) {
      const seen = this.examine(m);
      if ('event' in seen && !seen.refused) events.push({ m, event: seen.event });
      else single.push(m); // handle() parks it, counted
    }
    let fresh: boolean[] | undefined;
    const list = events.map((e) => e.event);
    const run = this.run;
    try {
      fresh = await this.transaction(list, async (em) => {
        const stopping = () => {
          if (run.stopping) throw new Error('consumer stopping: batch abandoned'); // rolled back, handed back below
        };
        stopping();
        const claimed = await claimEvents(em, name, list);
        await this.applyFresh(
          em,
          list.filter((_, i) => claimed[i]),
          stopping,
        );
        return claimed;
      });
    } catch {
      fresh = undefined;
    }
    if (!fresh) {
      if (run.stopping) return batch.forEach(settle('nak')); // redelivered, to be handled after the restart or by another replica
      for (const m of batch) await this.handle(m);
      return;
    }
    events.forEach(({ m }, i) => this.acked(m, fresh[i]! ? 'applied' : 'duplicate'));
    for (const m of single) await this.handle(m);
  }

  /**
   * Acks the events of the batch that `skip` says need no apply (no transaction, no claim) and
   * returns the other messages; malformed and refused ones are left to handle(), which parks them.
   */
  private async skipNoOps(batch: JsMsg[]): Promise<JsMsg[]> {
    const events: { m: JsMsg; event: ConsumedEvent }[] = [];
    for (const m of batch) {
      const seen = this.examine(m);
      if ('event' in seen && !seen.refused) events.push({ m, event: seen.event });
    }
    if (events.length === 0) return batch;
    let skip: boolean[];
    try {
      skip = await this.o.skip!(events.map((e) => e.event));
    } catch (err) {
      logRetriedFailure(this.o.log, err, { consumer: this.o.name }, 'deciding which events to skip failed; applying them all');
      return batch;
    }
    const skipped = new Set<JsMsg>();
    events.forEach(({ m }, i) => {
      if (!skip[i]) return;
      skipped.add(m);
      this.acked(m, 'skipped');
    });
    return skipped.size === 0 ? batch : batch.filter((m) => !skipped.has(m));
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
            run.backend = await lockPartitions(em, keys);
            return body(em);
          })
          .finally(() => (run.backend = undefined)),
      (code, attempt) => {
        this.o.metrics?.consumerConflicts.inc({ consumer: name, code });
        this.o.log.debug({ consumer: name, code, attempt }, 'apply transaction conflicted with another replica; retrying');
      },
    );
  }

  /** Applies events just claimed: at once by applyBatch when the consumer has one, else one by one (checking before each). */
  private async applyFresh(em: EntityManager, events: ConsumedEvent[], before: () => void = () => undefined): Promise<void> {
    if (events.length === 0) return;
    if (this.o.applyBatch) return this.o.applyBatch(em, events);
    for (const event of events) {
      before();
      await this.o.apply(em, event);
    }
  }

  /**
   * What a delivered message holds, decoded and checked by `refuse` once per delivery: the batch,
   * its skip test and handle() (a neighbour's failure sends each message there) all read this.
   */
  private examine(m: JsMsg): Examined {
    let seen = this.examined.get(m);
    if (!seen) {
      const decoded = decodeEvent(m);
      if ('payload' in decoded) {
        const event: ConsumedEvent = { id: decoded.payload.id, subject: m.subject, seq: m.seq, payload: decoded.payload };
        seen = { event, refused: this.o.refuse?.(event) };
      } else seen = decoded;
      this.examined.set(m, seen);
    }
    return seen;
  }

  private acked(m: JsMsg, outcome: 'applied' | 'duplicate' | 'skipped'): void {
    const { name } = this.o;
    settle('ack')(m);
    this.applied?.inc({ consumer: name, outcome });
    if (outcome !== 'duplicate') this.o.metrics?.consumerLag.observe({ consumer: name }, Math.max(0, Date.now() - m.info.timestampNanos / NS_PER_MS) / 1000);
  }

  private async handle(m: JsMsg): Promise<void> {
    const { name, log } = this.o;
    const seen = this.examine(m);
    if (!('event' in seen)) {
      // Not an event of ours: never applicable, so it must not block the consumer; kept for the operator.
      return this.parkAtOnce(m, { reason: 'malformed', error: seen.malformed, eventId: null, payload: null });
    }
    const { event, refused } = seen;
    const { payload } = event;
    if (refused) return this.parkAtOnce(m, { reason: 'refused', error: refused, eventId: event.id, payload });
    try {
      const fresh = await this.transaction([event], async (em) => {
        if (!(await claimEvents(em, name, [event]))[0]) return false;
        await this.applyFresh(em, [event]);
        return true;
      });
      this.acked(m, fresh ? 'applied' : 'duplicate');
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
      const error = String((err as Error)?.message ?? err);
      if (deliveries >= (this.o.maxDeliveries ?? 5) && (await this.park(m, { reason: 'failed', error, eventId: event.id, payload }))) {
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

  /** Parks a message that no delivery could apply (malformed, refused) and terminates it; redelivered later if it cannot be recorded. */
  private async parkAtOnce(m: JsMsg, p: ParkArgs): Promise<void> {
    const { name, log } = this.o;
    if (!(await this.park(m, p))) {
      this.applied?.inc({ consumer: name, outcome: 'failed' });
      m.nak(this.o.retryDelayMs ?? 1000);
      return;
    }
    const what = p.reason === 'malformed' ? 'malformed message parked' : 'event refused and parked';
    log.error({ consumer: name, subject: m.subject, seq: m.seq, event_id: p.eventId, reason: p.error }, what);
    this.applied?.inc({ consumer: name, outcome: p.reason });
    m.term();
  }

  /**
   * Records a message that will not be applied, with its raw bytes; false if even that failed (then
   * it is redelivered as usual). A message parked before (a rebuild replays the stream) stays as it
   * was, discarded or not.
   */
  private async park(m: JsMsg, p: ParkArgs): Promise<boolean> {
    try {
      await this.o.orm.em
        .fork()
        .getConnection()
        .execute(
          `INSERT INTO parked_events (consumer, event_id, stream_seq, subject, payload, raw, reason, error, deliveries) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
          [
            this.o.name,
            p.eventId,
            m.seq,
            m.subject,
            jsonbText(p.payload),
            Buffer.from(m.data),
            p.reason,
            p.error.slice(0, 2000).replace(/\0/g, '\uFFFD'), // Postgres text holds no NUL (a parse error may quote one)
            m.info.deliveryCount,
          ],
        );
      return true;
    } catch (e) {
      logRetriedFailure(this.o.log, e, { consumer: this.o.name, seq: m.seq }, 'could not park a message');
      return false;
    }
  }

  /* The operator's commands (npm run admin -- events parked ...), also served over NATS by serveAdmin. */

  /** Parked messages of this consumer in stream order; discarded ones only when asked. */
  async listParked(opts: { includeDiscarded?: boolean; limit?: number } = {}): Promise<ParkedEventView[]> {
    const limit = Math.min(Math.max(Math.trunc(opts.limit ?? 100), 1), 1000);
    const rows = await this.o.orm.em
      .fork()
      .getConnection()
      .execute<ParkedRow[]>(`SELECT * FROM parked_events WHERE consumer = ? AND (? OR discarded_at IS NULL) ORDER BY stream_seq LIMIT ?`, [
        this.o.name,
        opts.includeDiscarded === true,
        limit,
      ]);
    return rows.map((r) => viewOf(r, false));
  }

  /** One parked message with its raw bytes. */
  async showParked(seq: number): Promise<ParkedEventView> {
    return viewOf(await this.parkedRow(seq), true);
  }

  /** Marks a parked message discarded: no longer counted in events_parked_messages, never parked again by a rebuild. */
  async discardParked(seq: number): Promise<ParkedEventView> {
    const rows = await this.o.orm.em
      .fork()
      .getConnection()
      .execute<ParkedRow[]>(`UPDATE parked_events SET discarded_at = now() WHERE consumer = ? AND stream_seq = ? AND discarded_at IS NULL RETURNING *`, [this.o.name, seq]);
    if (!rows[0]) {
      await this.parkedRow(seq); // says "not parked" when there is none
      throw new ParkedEventError(`the message at stream seq ${seq} was already discarded`);
    }
    return viewOf(rows[0], false);
  }

  /**
   * Applies a parked message now (after a fix of the consumer or of what it depends on): decoded
   * and checked as on delivery, then claimed and applied, and its parked row removed, in one
   * transaction. Throws ParkedEventError when it is still malformed or refused.
   */
  async retryParked(seq: number): Promise<'applied' | 'duplicate'> {
    const row = await this.parkedRow(seq);
    if (row.discarded_at) throw new ParkedEventError(`the message at stream seq ${seq} was discarded`);
    const raw = rawOf(row);
    const decoded = raw ? decodeEvent({ data: raw }) : { malformed: 'no bytes kept' };
    if (!('payload' in decoded)) throw new ParkedEventError(`still malformed: ${decoded.malformed}`);
    const event: ConsumedEvent = { id: decoded.payload.id, subject: row.subject, seq: Number(row.stream_seq), payload: decoded.payload };
    const refused = this.o.refuse?.(event);
    if (refused) throw new ParkedEventError(`still refused: ${refused}`);
    const fresh = await this.o.orm.em.fork().transactional(async (em) => {
      const claimed = await claimEvent(em, this.o.name, event.id, event.seq);
      if (claimed) await this.o.apply(em, event);
      await em.execute(`DELETE FROM parked_events WHERE consumer = ? AND stream_seq = ?`, [this.o.name, seq], 'run');
      return claimed;
    });
    this.o.log.info({ consumer: this.o.name, seq, event_id: event.id, applied: fresh }, 'parked event retried');
    return fresh ? 'applied' : 'duplicate';
  }

  private async parkedRow(seq: number): Promise<ParkedRow> {
    const [row] = await this.o.orm.em.fork().getConnection().execute<ParkedRow[]>(`SELECT * FROM parked_events WHERE consumer = ? AND stream_seq = ?`, [this.o.name, seq]);
    if (!row) throw new ParkedEventError(`no message at stream seq ${seq} is parked by ${this.o.name}`);
    return row;
  }

  /** Answers ParkedEventsRequest on `subject` (one replica of the queue group each). */
  private serveAdmin(subject: string): Subscription {
    return this.o.nc.subscribe(subject, {
      queue: `${subject}.q`,
      callback: (_err, msg) => {
        const answer = async (): Promise<ParkedEventsReply> => {
          const req = decodeJson<ParkedEventsRequest>(msg.data);
          if (req?.action === 'list') return { ok: true, events: await this.listParked({ includeDiscarded: req.include_discarded, limit: req.limit }) };
          if (!req || !Number.isSafeInteger(req.stream_seq) || req.stream_seq < 1) return { ok: false, error: 'stream_seq must be a positive integer' };
          if (req.action === 'show') return { ok: true, event: await this.showParked(req.stream_seq) };
          if (req.action === 'discard') return { ok: true, event: await this.discardParked(req.stream_seq) };
          if (req.action === 'retry') return { ok: true, outcome: await this.retryParked(req.stream_seq) };
          return { ok: false, error: `unknown action ${String((req as { action?: unknown }).action)}` };
        };
        void answer()
          .catch((e: unknown): ParkedEventsReply => {
            if (!(e instanceof ParkedEventError)) this.o.log.error({ err: e, consumer: this.o.name }, 'parked-events command failed');
            return { ok: false, error: e instanceof Error ? e.message : String(e) };
          })
          .then((reply) => msg.respond(encodeJson(reply)));
      },
    });
  }

  /**
   * Cuts the linger short for the events up to stream sequence `upTo`: a batch that
   * holds one of them, queued now or arriving later, is applied without waiting lingerMs for more;
   * events after `upTo` linger as usual. For a reader of this process waiting for the events it knows
   * of to be applied (read-your-writes): it pays the batch's linger only when another replica holds
   * them, and a reader polling all through a burst does not switch batching off for what follows.
   */
  hurry(upTo: number): void {
    const run = this.run;
    run.hurryTo = Math.max(run.hurryTo, upTo);
    if (run.queue.some((m) => m.seq <= run.hurryTo)) run.hurried = true;
    run.wake();
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
    this.o.metrics?.parkedReaders.delete(this.o.name);
    await this.admin?.drain().catch(() => undefined);
    this.admin = undefined;
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

/**
 * A durable consumer as a service worker: started beside the RPC server once the events stream
 * exists (made if not: a consumer may start before any publisher), stopped with the service.
 */
export function eventConsumerWorker(name: string, w: { nc: NatsConnection; prefix: string; log?: Logger }, consumer: EventConsumer): Worker {
  return {
    name,
    start: async () => {
      await ensureEventsStream(w.nc, w.prefix, { log: w.log });
      await consumer.start();
    },
    stop: () => consumer.stop(),
  };
}
