import { randomUUID } from 'node:crypto';
import { eventsStreamName } from '@acct/contracts';
import { firstRow, silentLogger } from '@acct/testing';
import { Outbox } from './outbox';
import { ConsumerHarness, WINDOW_MS } from './testing/consumer-harness';

/** At-least-once delivery applied exactly once: crashes between send and mark, restarts, failed applies; the outbox's publish and add. */
describe('EventConsumer against real Postgres and JetStream: crashes and the outbox: each event applied once', () => {
  const h = new ConsumerHarness('acct_kit_consumer_outbox');
  beforeAll(h.start);
  afterAll(h.stop);

  it('applies each event once when a crash between send and mark is followed by a restart after the dedupe window', async () => {
    const outbox = new Outbox(h.nc, h.orm, silentLogger());
    const before = (await h.jsm.streams.info(eventsStreamName(h.prefix))).state.messages;
    const ids = await h.commitAndPublish(outbox, 10);
    // The crash: the rows went out, their marks never landed.
    await h.sql(`UPDATE outbox SET published_at = NULL WHERE id = ANY(?::uuid[])`, [`{${ids.join(',')}}`]);
    // Within the window a republish is dropped by the stream...
    const restartedSoon = new Outbox(h.nc, h.orm, silentLogger(), undefined, { relayMinAgeMs: 0 });
    expect(await restartedSoon.relayOnce()).toBe(10);
    expect((await h.jsm.streams.info(eventsStreamName(h.prefix))).state.messages).toBe(before + 10);
    await h.sql(`UPDATE outbox SET published_at = NULL WHERE id = ANY(?::uuid[])`, [`{${ids.join(',')}}`]);
    // ...after it (an outage longer than the window) the copies are stored: 20 messages for 10 rows.
    await new Promise((r) => setTimeout(r, WINDOW_MS + 500));
    const restartedLate = new Outbox(h.nc, h.orm, silentLogger(), undefined, { relayMinAgeMs: 0 });
    expect(await restartedLate.relayOnce()).toBe(10);
    expect((await h.jsm.streams.info(eventsStreamName(h.prefix))).state.messages).toBe(before + 20);

    const { c, metrics } = h.consumer('projection');
    await c.start();
    await h.ackedAll('projection');
    await c.stop();
    const counts = await h.appliedCounts('projection', ids);
    expect(counts).toHaveLength(10);
    expect(counts.every((r) => r.n === 1)).toBe(true);
    const consumed = await metrics.registry.getSingleMetricAsString('events_consumed_total');
    expect(consumed).toMatch(/outcome="duplicate"[^}]*} 10/);
    expect(consumed).toMatch(/outcome="applied"[^}]*} 10/);
  });

  it('retries an event whose apply failed (rolled back), then applies it once; a restart resumes where it stopped', async () => {
    const outbox = new Outbox(h.nc, h.orm, silentLogger());
    const ids = await h.commitAndPublish(outbox, 5);
    let failures = 0;
    const { c } = h.consumer('flaky', { fail: (e) => e.id === ids[2] && failures++ < 3 });
    await c.start();
    await h.ackedAll('flaky');
    await c.stop();
    expect(failures).toBe(4); // three refusals, then the check that let it through
    const first = await h.sql(`SELECT count(*)::int AS n FROM consumed_events WHERE consumer = 'flaky'`);
    // It also consumed what the first test published (all of the stream), each once.
    const streamEvents = new Set(((await h.sql(`SELECT event_id FROM consumed_events WHERE consumer = 'projection'`)) as { event_id: string }[]).map((r) => r.event_id));
    expect(firstRow(first).n).toBe(streamEvents.size + ids.length);

    const more = await h.commitAndPublish(outbox, 3);
    const { c: again } = h.consumer('flaky');
    await again.start();
    await h.ackedAll('flaky');
    await again.stop();
    const after = firstRow(await h.sql(`SELECT count(*)::int AS n FROM consumed_events WHERE consumer = 'flaky'`)).n;
    expect(after).toBe(firstRow(first).n + more.length);
    const counts = await h.appliedCounts('flaky', [...ids, ...more]);
    expect(counts).toHaveLength(ids.length + more.length);
    expect(counts.every((r) => r.n === 1)).toBe(true);
  });

  it('outbox.flushMarks waits for the batched mark already in flight', async () => {
    const outbox = new Outbox(h.nc, h.orm, silentLogger());
    const msgs = Array.from({ length: 5 }, () => {
      const id = randomUUID();
      return { id, subject: h.subject(), payload: { id, type: 'invoice.posted' } };
    });
    await h.orm.em.fork().transactional((em) => outbox.add(em, msgs));
    // Another transaction holds the rows, so the batched mark (started on the next turn of the
    // event loop) stays in flight until it lets go.
    const holder = await h.orm.em.fork().getConnection().getKnex().client.acquireConnection();
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
      await h.orm.em.getConnection().getKnex().client.releaseConnection(holder);
    }
    expect(early).toBe('still waiting');
    expect(await flushed).toBe('flushed');
    const rows = await h.sql(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL AND id = ANY(?::uuid[])`, [`{${msgs.map((m) => m.id).join(',')}}`]);
    expect(firstRow(rows).n).toBe(0);
  });

  it('outbox.publish sends the text its row holds: a payload changed after add() is not what the stream gets', async () => {
    const outbox = new Outbox(h.nc, h.orm, silentLogger());
    const id = randomUUID();
    const msg = { id, subject: h.subject(), payload: { id, type: 'invoice.posted', data: { memo: 'as written \u{1F600} "quoted"' } as Record<string, unknown> } };
    await h.orm.em.fork().transactional((em) => outbox.add(em, [msg]));
    msg.payload.data = { memo: 'changed after the row was written' };
    await outbox.publish([msg]);
    await outbox.flushMarks();
    const stored = firstRow(await h.sql(`SELECT payload FROM outbox WHERE id = ?`, [id])).payload;
    const { seq } = await h.jsm.streams.getMessage(eventsStreamName(h.prefix), { last_by_subj: h.subject() });
    const sent = await h.jsm.streams.getMessage(eventsStreamName(h.prefix), { seq });
    expect(JSON.parse(new TextDecoder().decode(sent.data))).toEqual(stored);
    expect(stored).toMatchObject({ id, data: { memo: 'as written \u{1F600} "quoted"' } });
  });

  it('outbox.add stores each payload as given, in the order given (seq), whatever its text holds', async () => {
    const outbox = new Outbox(h.nc, h.orm, silentLogger());
    const odd = ['", "x": {"}', 'back\\slash \\" and \\\\u0041', '{a,b}', 'NULL', '', '\u{1F600} \u00e9 \t\n', '[1,2]'];
    const msgs = odd.map((memo, i) => {
      const id = randomUUID();
      return { id, subject: h.subject(), payload: { id, type: 'invoice.posted', data: { memo, n: i, nested: [{ memo }] } } };
    });
    await h.orm.em.fork().transactional((em) => outbox.add(em, msgs));
    const rows = await h.sql(`SELECT id, payload FROM outbox WHERE id = ANY(?::uuid[]) ORDER BY seq`, [`{${msgs.map((m) => m.id).join(',')}}`]);
    expect(rows.map((r) => r.id)).toEqual(msgs.map((m) => m.id));
    expect(rows.map((r) => r.payload)).toEqual(msgs.map((m) => m.payload));
  });
});
