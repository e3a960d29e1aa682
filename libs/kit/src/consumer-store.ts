import type { ParkReason } from '@acct/contracts';
import { type EntityManager, type MigrationDef, type Orm, ddlMigration } from './db';
import { statement, transactionQuery } from './sql';

/*
 * The tables of every consumer (consumed_events, parked_events): their DDL and every statement on
 * them. The pull loop (consumer-loop.ts), the consumer (consumer.ts) and the operator's commands
 * (parked-admin.ts) go through these functions.
 */

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

/** Cancels the statement of a backend (stop() abandoning an apply transaction); errors are the caller's to ignore. */
export async function cancelBackend(orm: Orm, pid: number): Promise<void> {
  await orm.em.fork().getConnection().execute(`SELECT pg_cancel_backend(?)`, [pid]);
}

/** A row of parked_events as read. */
export interface ParkedRow {
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

/** A message to park, as parked_events takes it (payload: the jsonb text, or null). */
export interface NewParkedRow {
  consumer: string;
  eventId: string | null;
  seq: number;
  subject: string;
  payload: string | null;
  raw: Buffer;
  reason: ParkReason;
  error: string;
  deliveries: number;
}

/** Records a parked message; one parked before (a rebuild replays the stream) stays as it was, discarded or not. */
export async function insertParked(orm: Orm, r: NewParkedRow): Promise<void> {
  await orm.em
    .fork()
    .getConnection()
    .execute(
      `INSERT INTO parked_events (consumer, event_id, stream_seq, subject, payload, raw, reason, error, deliveries) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [r.consumer, r.eventId, r.seq, r.subject, r.payload, r.raw, r.reason, r.error, r.deliveries],
    );
}

/** Parked messages of a consumer not yet discarded (events_parked_messages, at scrape time). */
export async function countOpenParked(orm: Orm, consumer: string): Promise<number> {
  const [row] = await orm.em
    .fork()
    .getConnection()
    .execute<{ n: number }[]>(`SELECT count(*)::int AS n FROM parked_events WHERE consumer = ? AND discarded_at IS NULL`, [consumer]);
  return Number(row?.n ?? 0);
}

/** Parked messages of a consumer in stream order, at most `limit`; discarded ones only when asked. */
export function listParkedRows(orm: Orm, consumer: string, includeDiscarded: boolean, limit: number): Promise<ParkedRow[]> {
  return orm.em
    .fork()
    .getConnection()
    .execute<ParkedRow[]>(`SELECT * FROM parked_events WHERE consumer = ? AND (? OR discarded_at IS NULL) ORDER BY stream_seq LIMIT ?`, [consumer, includeDiscarded, limit]);
}

/** The parked message of a consumer at a stream sequence, if any. */
export async function parkedRowAt(orm: Orm, consumer: string, seq: number): Promise<ParkedRow | undefined> {
  const [row] = await orm.em.fork().getConnection().execute<ParkedRow[]>(`SELECT * FROM parked_events WHERE consumer = ? AND stream_seq = ?`, [consumer, seq]);
  return row;
}

/** Marks a parked message discarded; undefined when there is none not yet discarded. */
export async function discardParkedRow(orm: Orm, consumer: string, seq: number): Promise<ParkedRow | undefined> {
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<ParkedRow[]>(`UPDATE parked_events SET discarded_at = now() WHERE consumer = ? AND stream_seq = ? AND discarded_at IS NULL RETURNING *`, [consumer, seq]);
  return rows[0];
}

/** Removes a parked message in the caller's transaction (it was applied after all). */
export async function deleteParked(em: EntityManager, consumer: string, seq: number): Promise<void> {
  await em.execute(`DELETE FROM parked_events WHERE consumer = ? AND stream_seq = ?`, [consumer, seq], 'run');
}
