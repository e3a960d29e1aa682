import type { JsMsg, NatsConnection, Subscription } from 'nats';
import type { Counter } from 'prom-client';
import { type ParkReason, type ParkedEventView, isConsumerName, parkedEventsSubject } from '@acct/contracts';
import { retryOnConflict } from './conflicts';
import { type ConsumedEvent, type EventConsumerOptions, type Examined, NS_PER_MS, decodeEvent, settle } from './consumer-event';
import { DEFAULT_ACK_WAIT_MS, type Durable, PullLoop, type Run, hurryRun, idleRun, openDurable } from './consumer-loop';
import { cancelBackend, claimEvents, countOpenParked, insertParked, lockPartitions } from './consumer-store';
import type { EntityManager } from './db';
import type { Logger } from './logger';
import { ensureEventsStream } from './outbox';
import { ParkedAdmin } from './parked-admin';
import type { Worker } from './service';
import { isBackendUnavailable, logRetriedFailure } from './unavailable';

// The consumer's parts, exported from here as kit's API: the tables (consumer-store.ts), the event
// and options (consumer-event.ts), the pull loop (consumer-loop.ts), the operator's commands (parked-admin.ts).
export { CONSUMED_DDL, CONSUMER_MIGRATIONS, claimEvent, claimEvents, lockPartitions } from './consumer-store';
export type { ConsumedEvent, EventConsumerOptions } from './consumer-event';
export { BATCH_LINGER_MS, DEFAULT_ACK_WAIT_MS } from './consumer-loop';
export { ParkedEventError } from './parked-admin';

interface ParkArgs {
  reason: ParkReason;
  error: string;
  eventId: string | null;
  payload: unknown;
}

/** The payload as jsonb takes it; null when it cannot (jsonb refuses \u0000): the raw bytes keep it anyway. */
function jsonbText(payload: unknown): string | null {
  if (payload === null || payload === undefined) return null;
  const text = JSON.stringify(payload);
  return text.includes('\\u0000') ? null : text;
}

/**
 * A durable JetStream consumer that applies each event exactly once to its own Postgres schema:
 * claim (unique on event id) and apply in one transaction, ack after commit. Redelivery, duplicate
 * copies in the stream and restarts change nothing; a failing event is retried, then parked after
 * maxDeliveries. A message that is no event (malformed) or that `refuse` refuses is parked at once
 * with its raw bytes, never applied; the operator lists, shows, retries and discards parked
 * messages (ParkedAdmin, served for the consumers of CONSUMERS), and events_parked_messages counts them.
 */
export class EventConsumer {
  private loop?: PullLoop;
  /** The run of the loop (an idle one before start()); stop() sets its stopping. */
  private run: Run = idleRun();
  private readonly applied?: Counter<'consumer' | 'outcome'>;
  private readonly parked: ParkedAdmin;
  private admin?: Subscription;
  /** examine()'s answers, dropped with their messages. */
  private readonly examined = new WeakMap<JsMsg, Examined>();

  constructor(private readonly o: EventConsumerOptions) {
    this.applied = o.metrics?.eventsConsumed;
    this.parked = new ParkedAdmin(o);
  }

  /** Creates the durable consumer if missing and starts applying; resolves once it is consuming. */
  async start(): Promise<void> {
    const { prefix, name, log } = this.o;
    const durable = await openDurable(this.o);
    this.readMetrics(durable);
    if (isConsumerName(name) && !this.admin) this.admin = this.parked.serve(parkedEventsSubject(prefix, name));
    // The run is this consumer's from now on: a hurry() while the pull starts is kept.
    const run = (this.run = idleRun());
    this.loop = await PullLoop.start(durable.consumer, run, {
      ackWaitMs: this.o.ackWaitMs ?? DEFAULT_ACK_WAIT_MS,
      lingerMs: this.o.lingerMs,
      handleBatch: (batch) => this.handleBatch(batch),
      onError: (err) => log.error({ err, consumer: name }, 'event consumer stopped'),
    });
  }

  /** The gauges read at scrape time: the backlog and the parked messages not yet discarded. */
  private readMetrics({ jsm, stream }: Durable): void {
    const { name, orm } = this.o;
    // Backlog at scrape time: delivered-but-unacknowledged plus not yet delivered.
    this.o.metrics?.pendingReaders.set(name, async () => {
      const info = await jsm.consumers.info(stream, name);
      return info.num_pending + info.num_ack_pending;
    });
    this.o.metrics?.parkedReaders.set(name, () => countOpenParked(orm, name));
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
      await insertParked(this.o.orm, {
        consumer: this.o.name,
        eventId: p.eventId,
        seq: m.seq,
        subject: m.subject,
        payload: jsonbText(p.payload),
        raw: Buffer.from(m.data),
        reason: p.reason,
        error: p.error.slice(0, 2000).replace(/\0/g, '\uFFFD'), // Postgres text holds no NUL (a parse error may quote one)
        deliveries: m.info.deliveryCount,
      });
      return true;
    } catch (e) {
      logRetriedFailure(this.o.log, e, { consumer: this.o.name, seq: m.seq }, 'could not park a message');
      return false;
    }
  }

  /* The operator's commands (npm run admin -- events parked ...): ParkedAdmin's, also served over NATS. */

  /** Parked messages of this consumer in stream order; discarded ones only when asked. */
  listParked(opts: { includeDiscarded?: boolean; limit?: number } = {}): Promise<ParkedEventView[]> {
    return this.parked.list(opts);
  }

  /** One parked message with its raw bytes. */
  showParked(seq: number): Promise<ParkedEventView> {
    return this.parked.show(seq);
  }

  /** Marks a parked message discarded: no longer counted in events_parked_messages, never parked again by a rebuild. */
  discardParked(seq: number): Promise<ParkedEventView> {
    return this.parked.discard(seq);
  }

  /** Applies a parked message now, claimed and applied and its parked row removed in one transaction (ParkedAdmin.retry). */
  retryParked(seq: number): Promise<'applied' | 'duplicate'> {
    return this.parked.retry(seq);
  }

  /**
   * Cuts the linger short for the events up to stream sequence `upTo`: a batch that
   * holds one of them, queued now or arriving later, is applied without waiting lingerMs for more;
   * events after `upTo` linger as usual. For a reader of this process waiting for the events it knows
   * of to be applied (read-your-writes): it pays the batch's linger only when another replica holds
   * them, and a reader polling all through a burst does not switch batching off for what follows.
   */
  hurry(upTo: number): void {
    hurryRun(this.run, upTo);
  }

  /**
   * Stops pulling, hands back (nak) what was received and not yet taken, and waits for the batch
   * being applied at most stopGraceMs (default 100): a batch still running then is cancelled, and
   * its messages, unacknowledged, are redelivered and applied once (the claim makes a committed
   * one a duplicate).
   */
  async stop(): Promise<void> {
    const loop = this.loop;
    if (!loop) return;
    loop.halt();
    this.o.metrics?.pendingReaders.delete(this.o.name);
    this.o.metrics?.parkedReaders.delete(this.o.name);
    await this.admin?.drain().catch(() => undefined);
    this.admin = undefined;
    await loop.close(this.o.stopGraceMs ?? 100, (pid) => cancelBackend(this.o.orm, pid));
    this.loop = undefined;
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
