import type { JsMsg, NatsConnection } from 'nats';
import type { EntityManager, Orm } from './db';
import type { Logger } from './logger';
import type { ServiceMetrics } from './metrics';
import { decodeJson } from './payloads';

/*
 * What every part of a consumer shares: the event as apply() sees it, the consumer's options, the
 * decoding of a delivered message and the settling of one (ack, nak, working).
 */

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

export const NS_PER_MS = 1_000_000;

/** Acks, naks or extends (working) a message; after stop() the connection may be closing, and the server redelivers what it did not hear of. */
export const settle =
  (how: 'ack' | 'nak' | 'working') =>
  (m: JsMsg): void => {
    try {
      m[how]();
    } catch {
      // redelivered after ack_wait
    }
  };

/** The event a message holds, or why it is not one (not JSON, not an object with a string id). */
export function decodeEvent(m: { data: Uint8Array }): { payload: ConsumedEvent['payload'] } | { malformed: string } {
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
export type Examined = { malformed: string } | { event: ConsumedEvent; refused: string | undefined };
