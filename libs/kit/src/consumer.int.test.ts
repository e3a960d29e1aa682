import { randomUUID } from 'node:crypto';
import { AckPolicy, DeliverPolicy, connect, type JetStreamManager, type NatsConnection } from 'nats';
import { eventsStreamName } from '@acct/contracts';
import { NATS_URL, firstRow, freshDatabase, silentLogger, uniquePrefix, waitFor, type TestDatabase } from '@acct/testing';
import { CONSUMER_MIGRATIONS, type ConsumedEvent, DEFAULT_ACK_WAIT_MS, EventConsumer } from './consumer';
import { ddlMigration, migrate, openOrm, type Orm } from './db';
import { createMetrics } from './metrics';
import { OUTBOX_DDL, Outbox, ensureEventsStream } from './outbox';

/**
 * At-least-once delivery, applied exactly once: the outbox may publish a row twice (a crash between
 * send and mark, then a restart after the stream's dedupe window), the server redelivers what was not
 * acked, a consumer restarts; each event still changes the projection once.
 */
describe('EventConsumer against real Postgres and JetStream', () => {
  const WINDOW_MS = 1000;
  let db: TestDatabase;
  let orm: Orm;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let prefix: string;

  const sql = (q: string, params: unknown[] = []) => orm.em.getConnection().execute(q, params);
  const subject = () => `${prefix}.events.outbound.invoice.posted`;

  beforeAll(async () => {
    db = await freshDatabase('acct_kit_consumer');
    orm = await openOrm({
      url: db.url,
      schema: 'consumer_it',
      entities: [],
      migrations: [
        ...CONSUMER_MIGRATIONS,
        ...OUTBOX_DDL.map((d) => ({ name: `Outbox_v${d.version}`, class: ddlMigration(d.sql) })),
        { name: 'Applied', class: ddlMigration('CREATE TABLE applied (consumer text NOT NULL, event_id uuid NOT NULL, seq bigint NOT NULL)') },
      ],
      poolMax: 4,
    });
    await migrate(orm);
    nc = await connect({ servers: NATS_URL });
    prefix = uniquePrefix();
    jsm = await ensureEventsStream(nc, prefix, { duplicateWindowMs: WINDOW_MS });
  });
  afterAll(async () => {
    await jsm.streams.delete(eventsStreamName(prefix)).catch(() => undefined);
    await nc.drain();
    await orm.close(true);
    await db.drop();
  });

  function consumer(
    name: string,
    over: {
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
    } = {},
  ) {
    const metrics = createMetrics('test', false);
    const batches = over.batches;
    const c = new EventConsumer({
      nc: over.nc ?? nc,
      prefix,
      ackWaitMs: over.ackWaitMs,
      orm,
      log: silentLogger(),
      name,
      filterSubject: over.filterSubject ?? `${prefix}.events.>`,
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
  }

  /** How many times the consumer applied each of ids (ids it never applied are missing). */
  const appliedCounts = async (name: string, ids: string[]) =>
    (await sql(`SELECT event_id, count(*)::int AS n FROM applied WHERE consumer = ? AND event_id = ANY(?::uuid[]) GROUP BY event_id`, [name, `{${ids.join(',')}}`])) as {
      event_id: string;
      n: number;
    }[];
  const ackedAll = (name: string) =>
    waitFor(async () => {
      const info = await jsm.consumers.info(eventsStreamName(prefix), name);
      const stream = await jsm.streams.info(eventsStreamName(prefix));
      return info.num_pending === 0 && info.num_ack_pending === 0 && info.delivered.stream_seq === stream.state.last_seq;
    }, 15_000);

  /** Commits n outbox rows and publishes them as the services do. */
  async function commitAndPublish(outbox: Outbox, n: number): Promise<string[]> {
    const msgs = Array.from({ length: n }, () => {
      const id = randomUUID();
      return { id, subject: subject(), payload: { id, type: 'invoice.posted', data: { n } } };
    });
    await orm.em.fork().transactional((em) => outbox.add(em, msgs));
    await outbox.publish(msgs);
    await outbox.flushMarks();
    return msgs.map((m) => m.id);
  }

  it('applies each event once when a crash between send and mark is followed by a restart after the dedupe window', async () => {
    const outbox = new Outbox(nc, orm, silentLogger());
    const before = (await jsm.streams.info(eventsStreamName(prefix))).state.messages;
    const ids = await commitAndPublish(outbox, 10);
    // The crash: the rows went out, their marks never landed.
    await sql(`UPDATE outbox SET published_at = NULL WHERE id = ANY(?::uuid[])`, [`{${ids.join(',')}}`]);
    // Within the window a republish is dropped by the stream...
    const restartedSoon = new Outbox(nc, orm, silentLogger(), undefined, { relayMinAgeMs: 0 });
    expect(await restartedSoon.relayOnce()).toBe(10);
    expect((await jsm.streams.info(eventsStreamName(prefix))).state.messages).toBe(before + 10);
    await sql(`UPDATE outbox SET published_at = NULL WHERE id = ANY(?::uuid[])`, [`{${ids.join(',')}}`]);
    // ...after it (an outage longer than the window) the copies are stored: 20 messages for 10 rows.
    await new Promise((r) => setTimeout(r, WINDOW_MS + 500));
    const restartedLate = new Outbox(nc, orm, silentLogger(), undefined, { relayMinAgeMs: 0 });
    expect(await restartedLate.relayOnce()).toBe(10);
    expect((await jsm.streams.info(eventsStreamName(prefix))).state.messages).toBe(before + 20);

    const { c, metrics } = consumer('projection');
    await c.start();
    await ackedAll('projection');
    await c.stop();
    const counts = await appliedCounts('projection', ids);
    expect(counts).toHaveLength(10);
    expect(counts.every((r) => r.n === 1)).toBe(true);
    const consumed = await metrics.registry.getSingleMetricAsString('events_consumed_total');
    expect(consumed).toMatch(/outcome="duplicate"[^}]*} 10/);
    expect(consumed).toMatch(/outcome="applied"[^}]*} 10/);
  });

  it('retries an event whose apply failed (rolled back), then applies it once; a restart resumes where it stopped', async () => {
    const outbox = new Outbox(nc, orm, silentLogger());
    const ids = await commitAndPublish(outbox, 5);
    let failures = 0;
    const { c } = consumer('flaky', { fail: (e) => e.id === ids[2] && failures++ < 3 });
    await c.start();
    await ackedAll('flaky');
    await c.stop();
    expect(failures).toBe(4); // three refusals, then the check that let it through
    const first = await sql(`SELECT count(*)::int AS n FROM consumed_events WHERE consumer = 'flaky'`);
    // It also consumed what the first test published (all of the stream), each once.
    const streamEvents = new Set(((await sql(`SELECT event_id FROM consumed_events WHERE consumer = 'projection'`)) as { event_id: string }[]).map((r) => r.event_id));
    expect(firstRow(first).n).toBe(streamEvents.size + ids.length);

    const more = await commitAndPublish(outbox, 3);
    const { c: again } = consumer('flaky');
    await again.start();
    await ackedAll('flaky');
    await again.stop();
    const after = firstRow(await sql(`SELECT count(*)::int AS n FROM consumed_events WHERE consumer = 'flaky'`)).n;
    expect(after).toBe(firstRow(first).n + more.length);
    const counts = await appliedCounts('flaky', [...ids, ...more]);
    expect(counts).toHaveLength(ids.length + more.length);
    expect(counts.every((r) => r.n === 1)).toBe(true);
  });

  it('outbox.flushMarks waits for the batched mark already in flight', async () => {
    const outbox = new Outbox(nc, orm, silentLogger());
    const msgs = Array.from({ length: 5 }, () => {
      const id = randomUUID();
      return { id, subject: subject(), payload: { id, type: 'invoice.posted' } };
    });
    await orm.em.fork().transactional((em) => outbox.add(em, msgs));
    // Another transaction holds the rows, so the batched mark (started on the next turn of the
    // event loop) stays in flight until it lets go.
    const holder = await orm.em.fork().getConnection().getKnex().client.acquireConnection();
    const lock = (q: string) => new Promise<void>((resolve, reject) => holder.query(q, (err: Error | null) => (err ? reject(err) : resolve())));
    await lock('BEGIN');
    await lock(`SELECT 1 FROM consumer_it.outbox WHERE id IN (${msgs.map((m) => `'${m.id}'`).join(', ')}) FOR UPDATE`);
    let early: unknown;
    let flushed: Promise<string>;
    try {
      await outbox.publish(msgs);
      await new Promise((r) => setImmediate(r));
      flushed = outbox.flushMarks().then(() => 'flushed');
      early = await Promise.race([flushed, new Promise((r) => setTimeout(() => r('still waiting'), 300))]);
    } finally {
      await lock('COMMIT');
      await orm.em.getConnection().getKnex().client.releaseConnection(holder);
    }
    expect(early).toBe('still waiting');
    expect(await flushed).toBe('flushed');
    const rows = await sql(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL AND id = ANY(?::uuid[])`, [`{${msgs.map((m) => m.id).join(',')}}`]);
    expect(firstRow(rows).n).toBe(0);
  });

  it('outbox.publish sends the text its row holds: a payload changed after add() is not what the stream gets', async () => {
    const outbox = new Outbox(nc, orm, silentLogger());
    const id = randomUUID();
    const msg = { id, subject: subject(), payload: { id, type: 'invoice.posted', data: { memo: 'as written \u{1F600} "quoted"' } as Record<string, unknown> } };
    await orm.em.fork().transactional((em) => outbox.add(em, [msg]));
    msg.payload.data = { memo: 'changed after the row was written' };
    await outbox.publish([msg]);
    await outbox.flushMarks();
    const stored = firstRow(await sql(`SELECT payload FROM outbox WHERE id = ?`, [id])).payload;
    const { seq } = await jsm.streams.getMessage(eventsStreamName(prefix), { last_by_subj: subject() });
    const sent = await jsm.streams.getMessage(eventsStreamName(prefix), { seq });
    expect(JSON.parse(new TextDecoder().decode(sent.data))).toEqual(stored);
    expect(stored).toMatchObject({ id, data: { memo: 'as written \u{1F600} "quoted"' } });
  });

  it('outbox.add stores each payload as given, in the order given (seq), whatever its text holds', async () => {
    const outbox = new Outbox(nc, orm, silentLogger());
    const odd = ['", "x": {"}', 'back\\slash \\" and \\\\u0041', '{a,b}', 'NULL', '', '\u{1F600} \u00e9 \t\n', '[1,2]'];
    const msgs = odd.map((memo, i) => {
      const id = randomUUID();
      return { id, subject: subject(), payload: { id, type: 'invoice.posted', data: { memo, n: i, nested: [{ memo }] } } };
    });
    await orm.em.fork().transactional((em) => outbox.add(em, msgs));
    const rows = await sql(`SELECT id, payload FROM outbox WHERE id = ANY(?::uuid[]) ORDER BY seq`, [`{${msgs.map((m) => m.id).join(',')}}`]);
    expect(rows.map((r) => r.id)).toEqual(msgs.map((m) => m.id));
    expect(rows.map((r) => r.payload)).toEqual(msgs.map((m) => m.payload));
  });

  it('parks a message that is not an event (not JSON, no id) or that refuse() refuses, with its raw bytes, instead of blocking behind it', async () => {
    const js = nc.jetstream();
    const garbage = Uint8Array.from([0xff, 0xfe, 0x7b, 0x00]);
    const badSeq = (await js.publish(subject(), garbage)).seq;
    const idless = new TextEncoder().encode('{"no":"id"}');
    const idlessSeq = (await js.publish(subject(), idless)).seq;
    const refusedId = randomUUID();
    const refusedBytes = new TextEncoder().encode(JSON.stringify({ id: refusedId, type: 'invoice.posted', data: { refuse: true, memo: 'NUL \u0000 jsonb refuses' } }));
    const refusedSeq = (await js.publish(subject(), refusedBytes, { msgID: refusedId })).seq;
    const id = randomUUID();
    await js.publish(subject(), new TextEncoder().encode(JSON.stringify({ id, type: 'invoice.posted' })), { msgID: id });
    const { c, metrics } = consumer('tolerant', { refuse: (e) => ((e.payload.data as { refuse?: boolean } | undefined)?.refuse ? 'refused by the test' : undefined) });
    await c.start();
    await waitFor(async () => (await appliedCounts('tolerant', [id])).length === 1, 10_000);
    await ackedAll('tolerant');
    const rows = (await sql(`SELECT stream_seq::int AS seq, event_id, reason, raw, error FROM parked_events WHERE consumer = 'tolerant' ORDER BY stream_seq`)) as {
      seq: number;
      event_id: string | null;
      reason: string;
      raw: Buffer;
      error: string;
    }[];
    expect(rows.map((r) => [r.seq, r.event_id, r.reason])).toEqual([
      [badSeq, null, 'malformed'],
      [idlessSeq, null, 'malformed'],
      [refusedSeq, refusedId, 'refused'],
    ]);
    expect(rows.map((r) => Buffer.from(r.raw).toString('base64'))).toEqual([garbage, idless, refusedBytes].map((b) => Buffer.from(b).toString('base64')));
    expect(rows[0]!.error).toMatch(/^not JSON/);
    expect(rows[1]!.error).toMatch(/no event id/);
    expect(rows[2]!.error).toBe('refused by the test');
    expect(await appliedCounts('tolerant', [refusedId])).toEqual([]);
    const consumed = await metrics.registry.getSingleMetricAsString('events_consumed_total');
    expect(consumed).toMatch(/outcome="malformed"[^}]*} 2/);
    expect(consumed).toMatch(/outcome="refused"[^}]*} 1/);
    expect(await metrics.registry.getSingleMetricAsString('events_parked_messages')).toMatch(/consumer="tolerant"[^}]*} 3/);

    // The operator's commands: list, show (raw bytes), retry (still refused; malformed), discard.
    expect((await c.listParked()).map((e) => e.id)).toEqual([badSeq, idlessSeq, refusedSeq].map((q) => `tolerant/${q}`));
    const shown = await c.showParked(idlessSeq);
    expect(shown).toMatchObject({ reason: 'malformed', raw_text: '{"no":"id"}', raw_base64: Buffer.from(idless).toString('base64') });
    expect((await c.showParked(badSeq)).raw_text).toBeNull();
    await expect(c.retryParked(refusedSeq)).rejects.toThrow(/still refused: refused by the test/);
    await expect(c.retryParked(badSeq)).rejects.toThrow(/still malformed/);
    await c.discardParked(badSeq);
    await expect(c.discardParked(badSeq)).rejects.toThrow(/already discarded/);
    await expect(c.showParked(999_999)).rejects.toThrow(/no message at stream seq 999999/);
    expect((await c.listParked()).map((e) => e.stream_seq)).toEqual([idlessSeq, refusedSeq]);
    expect((await c.listParked({ includeDiscarded: true })).map((e) => e.stream_seq)).toEqual([badSeq, idlessSeq, refusedSeq]);
    expect(await metrics.registry.getSingleMetricAsString('events_parked_messages')).toMatch(/consumer="tolerant"[^}]*} 2/);
    await c.stop();

    // Replayed from the start (as a rebuild does): nothing applied twice, the discarded one stays discarded.
    await jsm.consumers.delete(eventsStreamName(prefix), 'tolerant');
    const again = consumer('tolerant', { refuse: (e) => ((e.payload.data as { refuse?: boolean } | undefined)?.refuse ? 'refused by the test' : undefined) });
    await again.c.start();
    await ackedAll('tolerant');
    expect((await again.c.listParked({ includeDiscarded: true })).map((e) => [e.stream_seq, e.discarded_at === null])).toEqual([
      [badSeq, false],
      [idlessSeq, true],
      [refusedSeq, true],
    ]);
    await again.c.stop();
  });

  it('retry applies a parked event once its apply succeeds, and removes it from the parked ones', async () => {
    const outbox = new Outbox(nc, orm, silentLogger());
    const [id] = await commitAndPublish(outbox, 1);
    let broken = true;
    const { c } = consumer('retrying', { fail: (e) => broken && e.id === id, maxDeliveries: 2 });
    await c.start();
    await ackedAll('retrying');
    const parked = (await c.listParked()).filter((e) => e.reason === 'failed');
    expect(parked.map((e) => e.event_id)).toEqual([id]);
    broken = false;
    expect(await c.retryParked(parked[0]!.stream_seq)).toBe('applied');
    expect(await appliedCounts('retrying', [id!])).toEqual([{ event_id: id, n: 1 }]);
    expect((await c.listParked()).filter((e) => e.reason === 'failed')).toEqual([]);
    await c.stop();
  });

  it('parks an event that keeps failing (recorded, counted, terminated) and goes on with the next ones', async () => {
    const outbox = new Outbox(nc, orm, silentLogger());
    const ids = await commitAndPublish(outbox, 3);
    const { c, metrics } = consumer('parking', { fail: (e) => e.id === ids[1], maxDeliveries: 3 });
    await c.start();
    await ackedAll('parking');
    await c.stop();
    const counts = await appliedCounts('parking', ids);
    expect(counts.map((r) => r.event_id).sort()).toEqual([ids[0], ids[2]].sort());
    const parked = await sql(`SELECT event_id, deliveries, error FROM parked_events WHERE consumer = 'parking' AND reason = 'failed'`);
    expect(parked).toEqual([{ event_id: ids[1], deliveries: 3, error: 'projection failed' }]);
    expect(await metrics.registry.getSingleMetricAsString('events_consumed_total')).toMatch(/outcome="parked"[^}]*} 1/);
  });

  it('applies a backlog in batches where a failing event fails none of its neighbours: each applied once, the poison parked', async () => {
    const outbox = new Outbox(nc, orm, silentLogger());
    const ids = await commitAndPublish(outbox, 40); // all in the stream before the consumer starts: delivered together
    const poison = ids[17]!;
    const { c } = consumer('batched', { fail: (e) => e.id === poison, maxDeliveries: 2 });
    await c.start();
    await ackedAll('batched');
    await c.stop();
    const counts = await appliedCounts('batched', ids);
    expect(counts.map((r) => r.event_id).sort()).toEqual(ids.filter((id) => id !== poison).sort());
    expect(counts.every((r) => r.n === 1)).toBe(true);
    expect(await sql(`SELECT event_id FROM parked_events WHERE consumer = 'batched' AND reason = 'failed'`)).toEqual([{ event_id: poison }]);
  });

  it('acks the events skip() skips without a transaction (never claimed nor applied, counted "skipped"); a skip() that throws skips none', async () => {
    const outbox = new Outbox(nc, orm, silentLogger());
    const ids = await commitAndPublish(outbox, 30);
    const skipped = new Set(ids.filter((_, i) => i % 3 !== 0));
    const asked: string[] = [];
    const { c, metrics } = consumer('skipping', {
      skip: async (events) => {
        asked.push(...events.map((e) => e.id).filter((id) => ids.includes(id))); // the stream holds the earlier tests' events too
        return events.map((e) => skipped.has(e.id));
      },
    });
    await c.start();
    await ackedAll('skipping');
    await c.stop();
    expect(asked.sort()).toEqual([...ids].sort()); // each event asked about once
    expect((await appliedCounts('skipping', ids)).map((r) => r.event_id).sort()).toEqual(ids.filter((id) => !skipped.has(id)).sort());
    const claimed = await sql(`SELECT event_id FROM consumed_events WHERE consumer = 'skipping' AND event_id = ANY(?::uuid[])`, [`{${ids.join(',')}}`]);
    expect(claimed.map((r) => String(r.event_id)).sort()).toEqual(ids.filter((id) => !skipped.has(id)).sort());
    expect(await metrics.registry.getSingleMetricAsString('events_consumed_total')).toMatch(/consumer="skipping",outcome="skipped"[^}]*} 20/);

    const more = await commitAndPublish(outbox, 5);
    const broken = consumer('skipping', {
      skip: () => Promise.reject(new Error('cannot tell')),
    });
    await broken.c.start();
    await ackedAll('skipping');
    await broken.c.stop();
    expect((await appliedCounts('skipping', more)).map((r) => r.n)).toEqual([1, 1, 1, 1, 1]);
  });

  /** Publishes events straight to the stream, each id as often as given (copies are stored: other message ids). */
  async function publishCopies(ids: string[]): Promise<number[]> {
    const js = nc.jetstream();
    const seqs: number[] = [];
    for (const id of ids) seqs.push((await js.publish(subject(), new TextEncoder().encode(JSON.stringify({ id, type: 'invoice.posted' })))).seq);
    return seqs;
  }
  const consumedOutcomes = async (metrics: ReturnType<typeof createMetrics>) =>
    Object.fromEntries((await metrics.eventsConsumed.get()).values.map((v) => [v.labels.outcome, v.value]));

  it.each([
    ['apply', 'claim-apply'],
    ['applyBatch', 'claim-batch'],
  ])('claims a batch in one statement (%s): copies inside a batch and across batches are duplicates, each event applied once', async (how, name) => {
    const batches = how === 'applyBatch' ? ([] as number[]) : undefined;
    const before = (await jsm.streams.info(eventsStreamName(prefix))).state.last_seq;
    const ids = Array.from({ length: 20 }, () => randomUUID());
    // In the stream before the consumer starts (delivered together): each id twice, the copy of one in upper case.
    const firstSeqs = await publishCopies(ids);
    await publishCopies([...ids.slice(0, 19), ids[19]!.toUpperCase()]);
    const { c, metrics } = consumer(name, { batches });
    await c.start();
    await ackedAll(name);
    await c.stop();
    // Across batches: copies of some after a restart, with new events.
    const more = Array.from({ length: 5 }, () => randomUUID());
    await publishCopies([...ids.slice(0, 5), ...more, ...more.slice(0, 2)]);
    const { c: again, metrics: againMetrics } = consumer(name, { batches });
    await again.start();
    await ackedAll(name);
    await again.stop();

    const counts = await appliedCounts(name, [...ids, ...more]);
    expect(counts).toHaveLength(ids.length + more.length);
    expect(counts.every((r) => r.n === 1)).toBe(true);
    // The claim keeps the stream position of the first copy.
    const claims = (await sql(`SELECT event_id::text AS id, stream_seq::int AS seq FROM consumed_events WHERE consumer = ? AND event_id = ANY(?::uuid[])`, [
      name,
      `{${ids.join(',')}}`,
    ])) as { id: string; seq: number }[];
    expect(new Map(claims.map((r) => [r.id, r.seq]))).toEqual(new Map(ids.map((id, i) => [id, firstSeqs[i]])));
    // The first run took the whole stream (earlier tests' messages too), each message once: applied, a copy, or malformed.
    const first = await consumedOutcomes(metrics);
    const second = await consumedOutcomes(againMetrics);
    expect(first.duplicate).toBeGreaterThanOrEqual(ids.length);
    expect(first.failed ?? 0).toBe(0);
    expect((first.applied ?? 0) + (first.duplicate ?? 0) + (first.malformed ?? 0)).toBe(before + 2 * ids.length);
    expect(second).toMatchObject({ applied: more.length, duplicate: 7 });
    if (batches) {
      expect(batches.reduce((s, n) => s + n, 0)).toBe(first.applied! + more.length);
      expect(Math.max(...batches)).toBeGreaterThan(1); // a backlog is applied in batches, not one by one
    }
  });

  it('lingerMs: events published one after the other while a batch lingers are applied in one transaction', async () => {
    const batches: number[] = [];
    const { c } = consumer('linger', { batches, lingerMs: 2000 });
    await c.start();
    await ackedAll('linger'); // the earlier tests' events first
    const drained = batches.length;
    const ids = Array.from({ length: 10 }, () => randomUUID());
    for (const id of ids) await publishCopies([id]); // ten publishes, each acked by the stream before the next
    await ackedAll('linger');
    await c.stop();
    expect(batches.slice(drained)).toEqual([10]);
    expect((await appliedCounts('linger', ids)).map((r) => r.n)).toEqual(Array<number>(10).fill(1));
  });

  it('hurry(upTo): a lingering batch holding an event up to upTo is applied at once, so is such an event arriving later, and later events linger', async () => {
    const batches: number[] = [];
    // Lingering ten minutes: without hurry() nothing below would be applied within the test's waits.
    // Its own subject: no earlier test's event to drain first.
    const own = `${prefix}.events.hurry`;
    const { c } = consumer('hurried', { batches, lingerMs: 600_000, filterSubject: own });
    await c.start();
    const info = () => jsm.consumers.info(eventsStreamName(prefix), 'hurried');
    const publishOwn = async (id: string) => (await nc.jetstream().publish(own, new TextEncoder().encode(JSON.stringify({ id, type: 'invoice.posted' })))).seq;
    const ackedUpTo = (seq: number) => waitFor(async () => (await info()).ack_floor.stream_seq >= seq, 15_000);
    const delivered = (n = 1) => waitFor(async () => (await info()).num_ack_pending === n, 15_000);
    const [lingering, arriving, later, marker] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const first = await publishOwn(lingering);
    await delivered(); // its batch lingers
    c.hurry(first);
    await ackedUpTo(first);
    c.hurry(first + 1); // nothing queued up to it yet: the event that arrives with that sequence is not kept waiting
    const second = await publishOwn(arriving);
    expect(second).toBe(first + 1); // nothing else publishes to this stream meanwhile
    await ackedUpTo(second);
    // An event after the sequence hurried for lingers, even while hurry() is called again (a reader
    // polling through a burst): the hurries did not switch lingering off. A marker published after
    // that hurry tells: it is received while the later event is still held (two unacked), and the
    // two are applied in one batch, which they would not be had the hurry let the later one go.
    const third = await publishOwn(later);
    await delivered();
    c.hurry(second);
    const fourth = await publishOwn(marker);
    await delivered(2);
    expect((await info()).ack_floor.stream_seq).toBe(second);
    c.hurry(fourth);
    await ackedUpTo(fourth);
    await c.stop();
    expect(third).toBe(second + 1);
    expect(batches).toEqual([1, 1, 2]);
    expect((await appliedCounts('hurried', [lingering, arriving, later, marker])).map((r) => r.n)).toEqual([1, 1, 1, 1]);
  });

  it('a consumer whose durable is deleted and made again (a rebuild on another replica) pulls again within seconds', async () => {
    const own = `${prefix}.events.remade`;
    const { c } = consumer('remade', { filterSubject: own });
    await c.start();
    const stream = eventsStreamName(prefix);
    const publishOwn = async (id: string) => (await nc.jetstream().publish(own, new TextEncoder().encode(JSON.stringify({ id, type: 'invoice.posted' })))).seq;
    const ackedUpTo = (seq: number, ms: number) => waitFor(async () => (await jsm.consumers.info(stream, 'remade')).ack_floor.stream_seq >= seq, ms);
    const [before, after] = [randomUUID(), randomUUID()];
    await ackedUpTo(await publishOwn(before), 15_000);
    // What a rebuild does: the durable goes, and comes back (delivering from the first message).
    const { config } = await jsm.consumers.info(stream, 'remade');
    await jsm.consumers.delete(stream, 'remade');
    await new Promise((r) => setTimeout(r, 200)); // the pull requests in flight hear of the deletion
    await jsm.consumers.add(stream, config);
    const started = Date.now();
    // The pull that was waiting went with the old durable; nats.js pulls again once its idle
    // heartbeat is missed: with the default expires (30 s) after ~30 s, with 5 s after ~7 s.
    await ackedUpTo(await publishOwn(after), 15_000);
    console.log(`remade durable: pulled again and applied ${Date.now() - started} ms after it was made again`);
    await c.stop();
    expect((await appliedCounts('remade', [before, after])).map((r) => r.n)).toEqual([1, 1]);
  }, 30_000);

  it('a poison event in a batch applied by applyBatch fails none of its neighbours: each applied once, the poison parked alone', async () => {
    const ids = Array.from({ length: 30 }, () => randomUUID());
    await publishCopies(ids);
    const poison = ids[11]!;
    const batches: number[] = [];
    // Each delivered message is decoded and judged once, though the skip test, the batch and then
    // (its neighbour failing) handle() each look at it.
    const judged = new Map<string, number>();
    const { c, metrics } = consumer('batched-hook', {
      fail: (e) => e.id === poison,
      maxDeliveries: 2,
      batches,
      refuse: (e) => void judged.set(e.id, (judged.get(e.id) ?? 0) + 1),
      skip: (events) => Promise.resolve(events.map(() => false)),
    });
    await c.start();
    await ackedAll('batched-hook');
    await c.stop();
    expect(ids.filter((id) => id !== poison).map((id) => judged.get(id))).toEqual(ids.slice(1).map(() => 1));
    expect(judged.get(poison)).toBe(2); // delivered twice, then parked
    const counts = await appliedCounts('batched-hook', ids);
    expect(counts.map((r) => r.event_id).sort()).toEqual(ids.filter((id) => id !== poison).sort());
    expect(counts.every((r) => r.n === 1)).toBe(true);
    expect(await sql(`SELECT event_id FROM parked_events WHERE consumer = 'batched-hook' AND reason = 'failed'`)).toEqual([{ event_id: poison }]);
    expect(await sql(`SELECT count(*)::int AS n FROM consumed_events WHERE consumer = 'batched-hook' AND event_id = ?`, [poison])).toEqual([{ n: 0 }]);
    expect(await consumedOutcomes(metrics)).toMatchObject({ parked: 1 });
  });

  /** A promise and the function that resolves it. */
  function signal<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
    let resolve!: (v: T) => void;
    const promise = new Promise<T>((r) => (resolve = r));
    return { promise, resolve };
  }

  // Well under the 30 s the server's default ack wait would take.
  it('an event held by a consumer that dies unacked goes to another consumer of the durable within the ack wait, set on a durable made before too', async () => {
    const own = `${prefix}.events.orphaned`;
    const stream = eventsStreamName(prefix);
    // The durable as an earlier version made it: the server's 30 s ack wait.
    await jsm.consumers.add(stream, { durable_name: 'orphaned', ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, filter_subject: own, ack_wait: 30_000 * 1e6 });
    const id = randomUUID();
    const held = signal();
    const killed = signal();
    const dying = await connect({ servers: NATS_URL });
    // Its apply takes the event and waits until its connection is gone, then fails (rolled back, as a dead process's transaction).
    const first = consumer('orphaned', {
      filterSubject: own,
      nc: dying,
      entered: async () => {
        held.resolve();
        await killed.promise;
        throw new Error('killed');
      },
    });
    const taken = signal<number>();
    const second = consumer('orphaned', { filterSubject: own, entered: (e) => void (e.id === id && taken.resolve(Date.now())) });
    try {
      await first.c.start();
      expect((await jsm.consumers.info(stream, 'orphaned')).config.ack_wait).toBe(DEFAULT_ACK_WAIT_MS * 1e6);
      await nc.jetstream().publish(own, new TextEncoder().encode(JSON.stringify({ id, type: 'invoice.posted' })));
      await held.promise; // the first consumer holds it
      await second.c.start();
      await dying.close(); // no ack, no nak: what the server sees of a kill -9
      const closedAt = Date.now();
      killed.resolve();
      const redeliveredAt = await taken.promise;
      await waitFor(async () => (await appliedCounts('orphaned', [id])).length === 1, 10_000);
      console.log(`an event held by a dead consumer was taken by another ${redeliveredAt - closedAt} ms later (ack wait ${DEFAULT_ACK_WAIT_MS} ms)`);
      expect(await appliedCounts('orphaned', [id])).toEqual([{ event_id: id, n: 1 }]);
    } finally {
      killed.resolve();
      await dying.close();
      await second.c.stop();
      await first.c.stop();
    }
  }, 20_000);

  it('a live consumer keeps an event it works on for longer than the ack wait: delivered once, no other consumer gets it', async () => {
    const own = `${prefix}.events.slow`;
    const ACK_WAIT_MS = 1000;
    const id = randomUUID();
    const started = signal();
    const entries: string[] = [];
    // Three ack waits of work: only its in-progress acks keep the server from redelivering it meanwhile.
    const slow = consumer('slow', {
      filterSubject: own,
      ackWaitMs: ACK_WAIT_MS,
      entered: async (e) => {
        entries.push(`slow ${e.id}`);
        started.resolve();
        await new Promise((r) => setTimeout(r, 3 * ACK_WAIT_MS));
      },
    });
    const other = consumer('slow', { filterSubject: own, ackWaitMs: ACK_WAIT_MS, entered: (e) => void entries.push(`other ${e.id}`) });
    await slow.c.start();
    await nc.jetstream().publish(own, new TextEncoder().encode(JSON.stringify({ id, type: 'invoice.posted' })));
    await started.promise;
    await other.c.start();
    const stream = eventsStreamName(prefix);
    await waitFor(async () => (await jsm.consumers.info(stream, 'slow')).num_ack_pending === 0, 15_000);
    const info = await jsm.consumers.info(stream, 'slow');
    await other.c.stop();
    await slow.c.stop();
    expect([info.num_redelivered, info.delivered.consumer_seq, info.delivered.stream_seq]).toEqual([0, 1, info.ack_floor.stream_seq]);
    expect(entries).toEqual([`slow ${id}`]);
    expect(await appliedCounts('slow', [id])).toEqual([{ event_id: id, n: 1 }]);
  }, 30_000);
});
