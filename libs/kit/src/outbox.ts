import { type JetStreamManager, type NatsConnection, RetentionPolicy, StorageType, headers as natsHeaders } from 'nats';
import { eventsStreamName, eventsSubjectFilter } from '@acct/contracts';
import type { EntityManager, Orm } from './db';
import type { Logger } from './logger';
import type { ServiceMetrics } from './metrics';
import { encodeJson } from './payloads';
import { publishToStream } from './requester';
import { retryJetStreamSetup } from './jetstream-setup';
import { statement, transactionQuery, withQuery } from './sql';
import { Gauge } from 'prom-client';

/**
 * Version 1 of the outbox table. FROZEN: shipped migrations run exactly this text; change the
 * outbox by adding version 2 to OUTBOX_DDL, never by editing this (a test holds the checksums).
 */
const OUTBOX_DDL_V1 = `
  CREATE TABLE outbox (
    id uuid PRIMARY KEY,
    seq bigserial NOT NULL,
    subject text NOT NULL,
    payload jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz
  );
  CREATE INDEX outbox_unpublished ON outbox (seq) WHERE published_at IS NULL;
`;

/** The outbox's DDL, oldest version first; every publishing service runs each as a migration. */
export const OUTBOX_DDL: readonly { version: number; sql: string }[] = Object.freeze([{ version: 1, sql: OUTBOX_DDL_V1 }]);

/**
 * The outbox rows' INSERT, `?` placeholders, no WHERE clause (also run inside another statement:
 * Outbox.rows). The payloads come as ONE JSON array, not a text[] of JSON texts: a text[] element
 * is escaped by the driver (every quote of the JSON) and unescaped by Postgres, which cost both
 * processes CPU on every group's outbox rows (docs/performance.md). ROWS FROM zips the
 * three lists in order, so the rows' seq follows the messages' order as before.
 */
export const OUTBOX_INSERT_SQL =
  'INSERT INTO outbox (id, subject, payload) SELECT id, subject, payload FROM ROWS FROM (unnest(?::uuid[]), unnest(?::text[]), jsonb_array_elements(?::jsonb)) AS t (id, subject, payload)';
// Named (prepared once per connection): every posting writes its outbox rows (bench post-invoice).
const utf8 = new TextEncoder();
const INSERT_OUTBOX = statement('outbox_insert', OUTBOX_INSERT_SQL);
// Named too, one text for any number of ids: an IN list of as many placeholders was a new
// statement for Postgres to parse and plan at each count, through MikroORM's execute.
const MARK_PUBLISHED = statement('outbox_mark_published', 'UPDATE outbox SET published_at = now() WHERE id = ANY(?::uuid[])');

export interface OutboxMessage {
  /** Also the JetStream message id, so the stream drops a second publish of the same row. */
  id: string;
  subject: string;
  payload: unknown;
}

/**
 * How long JetStream remembers message ids (its dedupe window), by default. The outbox publishes
 * a row again when a crash came between sending it and marking it; within the window the stream
 * drops the copy, after it (an outage longer than the window) the copy is stored. Delivery is
 * therefore at least once: every consumer applies an event once by its id (EventConsumer does).
 */
export const DUPLICATE_WINDOW_MS = 2 * 60 * 1000;
const NS_PER_MS = 1_000_000;

/** Creates the stack's events stream if it does not exist yet (idempotent, safe to race). */
export async function ensureEventsStream(
  nc: NatsConnection,
  prefix: string,
  opts: { duplicateWindowMs?: number; replicas?: number; log?: Logger } = {},
): Promise<JetStreamManager> {
  const name = eventsStreamName(prefix);
  const retry = <T>(what: string, fn: () => Promise<T>) => retryJetStreamSetup(`${what} (stream ${name})`, fn, { log: opts.log });
  const jsm = await retry('jetstream manager', () => nc.jetstreamManager());
  await retry('events stream setup', () => addEventsStream(jsm, name, prefix, opts));
  return jsm;
}

async function addEventsStream(jsm: JetStreamManager, name: string, prefix: string, opts: { duplicateWindowMs?: number; replicas?: number }): Promise<void> {
  try {
    await jsm.streams.info(name);
  } catch {
    try {
      await jsm.streams.add({
        name,
        subjects: [eventsSubjectFilter(prefix)],
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        duplicate_window: (opts.duplicateWindowMs ?? DUPLICATE_WINDOW_MS) * NS_PER_MS,
        // Kept forever (max_age 0, no message or byte limit): the stream is the log the reporting
        // projection is rebuilt from (`npm run admin -- reporting rebuild` replays it from sequence 1),
        // so it must hold every event ever published. Size it by disk (about 1-2 KB per event).
        max_age: 0,
        // On a JetStream cluster: copies on this many nodes (3 survives the loss of one); the
        // durable consumers take the stream's replica count.
        num_replicas: opts.replicas ?? 1,
      });
    } catch (e) {
      // Another replica created it between our info and add.
      await jsm.streams.info(name).catch(() => {
        throw e;
      });
    }
  }
}

/**
 * Writes outbox rows inside the caller's transaction (`em` is the transactional EntityManager), for
 * a writer without an Outbox of its own: the admin CLI writes the gateway's rows, which the relay of
 * the gateway process then publishes (Outbox.add does the same and times the rows for its metrics).
 */
export async function addToOutbox(em: EntityManager, messages: readonly OutboxMessage[]): Promise<void> {
  if (!messages.length) return;
  const q = await transactionQuery(em);
  await q(INSERT_OUTBOX, [messages.map((m) => m.id), messages.map((m) => m.subject), JSON.stringify(messages.map((m) => m.payload))]);
}

export interface OutboxOptions {
  /**
   * Put before every row's subject (with a dot) when it is sent. For rows whose writer does not know
   * the stack's NATS_PREFIX (the admin CLI writes the gateway's): they store the subject without it.
   */
  subjectPrefix?: string;
  /** How often the relay looks for rows a crash left unpublished. */
  relayIntervalMs?: number;
  /** Rows younger than this are left to the inline publisher. */
  relayMinAgeMs?: number;
  relayBatch?: number;
}

/** How long inline-published rows wait to be marked with the next ones (Outbox.publish). */
const MARK_LINGER_MS = 20;

/**
 * Transactional outbox. add() writes rows in the caller's transaction; after commit, publish()
 * sends them to JetStream with msgID = row id and marks them; the relay republishes whatever a
 * crash left behind. A rolled-back transaction leaves no row, so nothing is ever published for it.
 */
export class Outbox {
  private timer?: NodeJS.Timeout;
  private relaying?: Promise<number>;
  /** Rows published inline, marked in batches off the reply path (see publish()). */
  private toMark: string[] = [];
  private marking?: Promise<void>;
  /** Mark UPDATEs in flight. */
  private readonly updating = new Set<Promise<void>>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly orm: Orm,
    private readonly log: Logger,
    private readonly metrics?: ServiceMetrics,
    private readonly opts: OutboxOptions = {},
  ) {}

  /**
   * Each message as its row was written: when (for outbox_publish_lag_seconds) and its payload's
   * JSON text (publish() sends these bytes, not a second stringify); dropped with the message.
   */
  private readonly written = new WeakMap<OutboxMessage, { at: number; text: string }>();

  /** Inside the caller's transaction (`em` is the transactional EntityManager). */
  async add(em: EntityManager, messages: OutboxMessage[]): Promise<void> {
    if (!messages.length) return;
    // One named statement for any number of rows, on the transaction's connection.
    const q = await transactionQuery(em);
    await q(INSERT_OUTBOX, this.rows(messages));
  }

  /**
   * The values of OUTBOX_INSERT_SQL for these messages, for a caller that writes them inside one of
   * its own statements in its transaction (libs/posting: with the journal entries); as add() does.
   */
  rows(messages: readonly OutboxMessage[]): [string[], string[], string] {
    const now = Date.now();
    const texts = messages.map((m) => {
      const text = JSON.stringify(m.payload);
      this.written.set(m, { at: now, text });
      return text;
    });
    return [messages.map((m) => m.id), messages.map((m) => m.subject), `[${texts.join(',')}]`];
  }

  private async send(m: OutboxMessage): Promise<void> {
    const h = natsHeaders();
    h.set('Content-Type', 'application/json');
    const text = this.written.get(m)?.text;
    const subject = this.opts.subjectPrefix === undefined ? m.subject : `${this.opts.subjectPrefix}.${m.subject}`;
    await publishToStream(this.nc, subject, text === undefined ? encodeJson(m.payload) : utf8.encode(text), { msgID: m.id, headers: h });
  }

  /** One UPDATE for many rows; `em` is the relay's transaction, or none for the batched marks. */
  private async markPublished(ids: string[], em?: EntityManager): Promise<void> {
    if (!ids.length) return;
    if (em) await (await transactionQuery(em))(MARK_PUBLISHED, [ids]);
    else await withQuery(this.orm, (q) => q(MARK_PUBLISHED, [ids]));
  }

  /**
   * After commit, before the reply: every message of the transaction is in the stream when this
   * resolves. Never throws: what fails here, the relay publishes later. Marking the rows published
   * is batched off the reply path; until it lands the relay leaves them alone (relayMinAgeMs), and
   * if the process dies first the relay publishes them again, which the stream drops by message id.
   */
  async publish(messages: OutboxMessage[]): Promise<void> {
    if (!messages.length) return;
    this.countPostings(messages);
    try {
      const ack = this.metrics?.outboxPublishAck.startTimer();
      const sent = await Promise.allSettled(messages.map((m) => this.send(m)));
      const done = messages.filter((_, i) => sent[i]?.status === 'fulfilled').map((m) => m.id);
      // Acked publishes only: a failed one took its timeout, and the relay publishes it later.
      if (done.length === messages.length) ack?.();
      this.metrics?.outboxPublished.inc({ kind: 'inline' }, done.length);
      const now = Date.now();
      messages.forEach((m, i) => {
        const at = this.written.get(m)?.at;
        if (at !== undefined && sent[i]?.status === 'fulfilled') this.metrics?.outboxPublishLag.observe({ kind: 'inline' }, (now - at) / 1000);
      });
      this.toMark.push(...done);
      // Marked MARK_LINGER_MS later, in one UPDATE with what other transactions publish meanwhile
      // (a busy organization's groups: one mark per ~10 of them, not one each). The relay leaves
      // rows younger than relayMinAgeMs (2 s) alone, and the stream drops a copy it would send.
      this.marking ??= new Promise<void>((resolve) => setTimeout(resolve, MARK_LINGER_MS)).then(() => this.flushMarks());
      if (done.length < messages.length) {
        this.log.warn({ published: done.length, pending: messages.length - done.length }, 'outbox publish partly deferred to the relay');
      }
    } catch (err) {
      this.log.warn({ err, pending: messages.length }, 'outbox publish deferred to the relay');
    }
  }

  /** publish() runs once per committed transaction: its journal_entry.posted rows are the postings. */
  private countPostings(messages: OutboxMessage[]): void {
    if (!this.metrics) return;
    for (const m of messages) {
      const p = m.payload as { type?: unknown; entry?: { source_type?: unknown } } | null;
      if (p?.type === 'journal_entry.posted') this.metrics.journalEntries.inc({ source_type: typeof p.entry?.source_type === 'string' ? p.entry.source_type : 'unknown' });
    }
  }

  /**
   * Marks every inline-published row so far in one UPDATE, and resolves once every mark started
   * before it (the batched one included) has landed.
   */
  async flushMarks(): Promise<void> {
    const ids = this.toMark;
    this.toMark = [];
    this.marking = undefined;
    if (ids.length) {
      const update = this.markPublished(ids).catch((err: unknown) => {
        this.log.warn({ err, count: ids.length }, 'marking outbox rows failed; the relay will republish them (deduplicated)');
      });
      this.updating.add(update);
      void update.finally(() => this.updating.delete(update));
    }
    await Promise.all([...this.updating]);
  }

  /** Publishes unpublished rows in commit order; returns how many it published. */
  relayOnce(): Promise<number> {
    // One relay pass at a time per process; replicas skip each other's locked rows.
    this.relaying ??= this.relayPass().finally(() => (this.relaying = undefined));
    return this.relaying;
  }

  private async relayPass(): Promise<number> {
    const minAgeMs = this.opts.relayMinAgeMs ?? 2000;
    const batch = this.opts.relayBatch ?? 200;
    return this.orm.em.fork().transactional(async (em) => {
      const rows: Array<{ id: string; subject: string; payload: unknown; age: number }> = await em.execute(
        `SELECT id, subject, payload, extract(epoch FROM now() - created_at)::float AS age FROM outbox
          WHERE published_at IS NULL AND created_at < now() - make_interval(secs => ?)
          ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED`,
        [minAgeMs / 1000, batch],
      );
      for (const r of rows) {
        await this.send({ id: r.id, subject: r.subject, payload: r.payload });
        this.metrics?.outboxPublished.inc({ kind: 'relay' });
        this.metrics?.outboxPublishLag.observe({ kind: 'relay' }, Math.max(0, Number(r.age)));
      }
      if (rows.length) {
        await this.markPublished(
          rows.map((r) => r.id),
          em,
        );
        this.log.info({ count: rows.length }, 'outbox relay published rows left behind');
      }
      return rows.length;
    });
  }

  /**
   * Scrape-time gauges of the backlog: rows committed but not yet marked published, and the age of
   * the oldest. A growing backlog means JetStream is unreachable (or the relay is failing).
   */
  registerBacklogMetrics(): void {
    if (!this.metrics) return;
    const orm = this.orm;
    let last: Promise<{ rows: number; oldest: number }> | undefined;
    const read = () =>
      (last ??= orm.em
        .getConnection()
        .execute(
          `SELECT count(*)::int AS rows, coalesce(extract(epoch FROM now() - min(created_at)), 0)::float AS oldest
             FROM outbox WHERE published_at IS NULL`,
        )
        .then((r) => r[0] as { rows: number; oldest: number })
        .finally(() => setImmediate(() => (last = undefined))));
    new Gauge({
      name: 'outbox_unpublished_rows',
      help: 'Outbox rows committed but not yet published to JetStream.',
      registers: [this.metrics.registry],
      async collect() {
        this.set((await read().catch(() => ({ rows: -1, oldest: 0 }))).rows);
      },
    });
    new Gauge({
      name: 'outbox_oldest_unpublished_seconds',
      help: 'Age of the oldest unpublished outbox row (0 when none).',
      registers: [this.metrics.registry],
      async collect() {
        this.set((await read().catch(() => ({ rows: 0, oldest: 0 }))).oldest);
      },
    });
  }

  startRelay(): void {
    const every = this.opts.relayIntervalMs ?? 5000;
    this.timer = setInterval(() => {
      this.relayOnce().catch((err) => this.log.warn({ err }, 'outbox relay failed'));
    }, every);
    this.timer.unref();
  }

  async stopRelay(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.relaying?.catch(() => undefined);
    await this.marking;
    await this.flushMarks();
  }
}

/** Deletes a stack's events stream (throwaway stacks: tests, benchmarks). Missing is fine. */
export async function dropEventsStream(natsUrl: string, prefix: string): Promise<void> {
  const { connect } = await import('nats');
  const nc = await connect({ servers: natsUrl.split(',') });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(eventsStreamName(prefix)).catch(() => false);
  } finally {
    await nc.close();
  }
}
