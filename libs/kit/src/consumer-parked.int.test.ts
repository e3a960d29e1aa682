import { randomUUID } from 'node:crypto';
import { eventsStreamName } from '@acct/contracts';
import { silentLogger, waitFor } from '@acct/testing';
import { Outbox } from './outbox';
import { ConsumerHarness, consumedOutcomes } from './testing/consumer-harness';

/** A message that cannot be applied is parked (and retried from there) instead of blocking the ones behind it; skip() acks without a claim. */
describe('EventConsumer against real Postgres and JetStream: parked events, refuse() and skip()', () => {
  const h = new ConsumerHarness('acct_kit_consumer_parked');
  beforeAll(h.start);
  afterAll(h.stop);

  it('parks a message that is not an event (not JSON, no id) or that refuse() refuses, with its raw bytes, instead of blocking behind it', async () => {
    const js = h.nc.jetstream();
    const garbage = Uint8Array.from([0xff, 0xfe, 0x7b, 0x00]);
    const badSeq = (await js.publish(h.subject(), garbage)).seq;
    const idless = new TextEncoder().encode('{"no":"id"}');
    const idlessSeq = (await js.publish(h.subject(), idless)).seq;
    const refusedId = randomUUID();
    const refusedBytes = new TextEncoder().encode(JSON.stringify({ id: refusedId, type: 'invoice.posted', data: { refuse: true, memo: 'NUL \u0000 jsonb refuses' } }));
    const refusedSeq = (await js.publish(h.subject(), refusedBytes, { msgID: refusedId })).seq;
    const id = randomUUID();
    await js.publish(h.subject(), new TextEncoder().encode(JSON.stringify({ id, type: 'invoice.posted' })), { msgID: id });
    const { c, metrics } = h.consumer('tolerant', { refuse: (e) => ((e.payload.data as { refuse?: boolean } | undefined)?.refuse ? 'refused by the test' : undefined) });
    await c.start();
    await waitFor(async () => (await h.appliedCounts('tolerant', [id])).length === 1, 10_000);
    await h.ackedAll('tolerant');
    const rows = (await h.sql(`SELECT stream_seq::int AS seq, event_id, reason, raw, error FROM parked_events WHERE consumer = 'tolerant' ORDER BY stream_seq`)) as {
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
    expect(await h.appliedCounts('tolerant', [refusedId])).toEqual([]);
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
    await h.jsm.consumers.delete(eventsStreamName(h.prefix), 'tolerant');
    const again = h.consumer('tolerant', { refuse: (e) => ((e.payload.data as { refuse?: boolean } | undefined)?.refuse ? 'refused by the test' : undefined) });
    await again.c.start();
    await h.ackedAll('tolerant');
    expect((await again.c.listParked({ includeDiscarded: true })).map((e) => [e.stream_seq, e.discarded_at === null])).toEqual([
      [badSeq, false],
      [idlessSeq, true],
      [refusedSeq, true],
    ]);
    await again.c.stop();
  });

  it('retry applies a parked event once its apply succeeds, and removes it from the parked ones', async () => {
    const outbox = new Outbox(h.nc, h.orm, silentLogger());
    const [id] = await h.commitAndPublish(outbox, 1);
    let broken = true;
    const { c } = h.consumer('retrying', { fail: (e) => broken && e.id === id, maxDeliveries: 2 });
    await c.start();
    await h.ackedAll('retrying');
    const parked = (await c.listParked()).filter((e) => e.reason === 'failed');
    expect(parked.map((e) => e.event_id)).toEqual([id]);
    broken = false;
    expect(await c.retryParked(parked[0]!.stream_seq)).toBe('applied');
    expect(await h.appliedCounts('retrying', [id!])).toEqual([{ event_id: id, n: 1 }]);
    expect((await c.listParked()).filter((e) => e.reason === 'failed')).toEqual([]);
    await c.stop();
  });

  it('parks an event that keeps failing (recorded, counted, terminated) and goes on with the next ones', async () => {
    const outbox = new Outbox(h.nc, h.orm, silentLogger());
    const ids = await h.commitAndPublish(outbox, 3);
    const { c, metrics } = h.consumer('parking', { fail: (e) => e.id === ids[1], maxDeliveries: 3 });
    await c.start();
    await h.ackedAll('parking');
    await c.stop();
    const counts = await h.appliedCounts('parking', ids);
    expect(counts.map((r) => r.event_id).sort()).toEqual([ids[0], ids[2]].sort());
    const parked = await h.sql(`SELECT event_id, deliveries, error FROM parked_events WHERE consumer = 'parking' AND reason = 'failed'`);
    expect(parked).toEqual([{ event_id: ids[1], deliveries: 3, error: 'projection failed' }]);
    expect(await metrics.registry.getSingleMetricAsString('events_consumed_total')).toMatch(/outcome="parked"[^}]*} 1/);
  });

  it('applies a backlog in batches where a failing event fails none of its neighbours: each applied once, the poison parked', async () => {
    const outbox = new Outbox(h.nc, h.orm, silentLogger());
    const ids = await h.commitAndPublish(outbox, 40); // all in the stream before the consumer starts: delivered together
    const poison = ids[17]!;
    const { c } = h.consumer('batched', { fail: (e) => e.id === poison, maxDeliveries: 2 });
    await c.start();
    await h.ackedAll('batched');
    await c.stop();
    const counts = await h.appliedCounts('batched', ids);
    expect(counts.map((r) => r.event_id).sort()).toEqual(ids.filter((id) => id !== poison).sort());
    expect(counts.every((r) => r.n === 1)).toBe(true);
    expect(await h.sql(`SELECT event_id FROM parked_events WHERE consumer = 'batched' AND reason = 'failed'`)).toEqual([{ event_id: poison }]);
  });

  it('acks the events skip() skips without a transaction (never claimed nor applied, counted "skipped"); a skip() that throws skips none', async () => {
    const outbox = new Outbox(h.nc, h.orm, silentLogger());
    const ids = await h.commitAndPublish(outbox, 30);
    const skipped = new Set(ids.filter((_, i) => i % 3 !== 0));
    const asked: string[] = [];
    const { c, metrics } = h.consumer('skipping', {
      skip: async (events) => {
        asked.push(...events.map((e) => e.id).filter((id) => ids.includes(id))); // the stream holds the earlier tests' events too
        return events.map((e) => skipped.has(e.id));
      },
    });
    await c.start();
    await h.ackedAll('skipping');
    await c.stop();
    expect(asked.sort()).toEqual([...ids].sort()); // each event asked about once
    expect((await h.appliedCounts('skipping', ids)).map((r) => r.event_id).sort()).toEqual(ids.filter((id) => !skipped.has(id)).sort());
    const claimed = await h.sql(`SELECT event_id FROM consumed_events WHERE consumer = 'skipping' AND event_id = ANY(?::uuid[])`, [`{${ids.join(',')}}`]);
    expect(claimed.map((r) => String(r.event_id)).sort()).toEqual(ids.filter((id) => !skipped.has(id)).sort());
    expect(await metrics.registry.getSingleMetricAsString('events_consumed_total')).toMatch(/consumer="skipping",outcome="skipped"[^}]*} 20/);

    const more = await h.commitAndPublish(outbox, 5);
    const broken = h.consumer('skipping', {
      skip: () => Promise.reject(new Error('cannot tell')),
    });
    await broken.c.start();
    await h.ackedAll('skipping');
    await broken.c.stop();
    expect((await h.appliedCounts('skipping', more)).map((r) => r.n)).toEqual([1, 1, 1, 1, 1]);
  });

  /** Publishes events straight to the stream, each id as often as given (copies are stored: other message ids). */

  it('a poison event in a batch applied by applyBatch fails none of its neighbours: each applied once, the poison parked alone', async () => {
    const ids = Array.from({ length: 30 }, () => randomUUID());
    await h.publishCopies(ids);
    const poison = ids[11]!;
    const batches: number[] = [];
    // Each delivered message is decoded and judged once, though the skip test, the batch and then
    // (its neighbour failing) handle() each look at it.
    const judged = new Map<string, number>();
    const { c, metrics } = h.consumer('batched-hook', {
      fail: (e) => e.id === poison,
      maxDeliveries: 2,
      batches,
      refuse: (e) => void judged.set(e.id, (judged.get(e.id) ?? 0) + 1),
      skip: (events) => Promise.resolve(events.map(() => false)),
    });
    await c.start();
    await h.ackedAll('batched-hook');
    await c.stop();
    expect(ids.filter((id) => id !== poison).map((id) => judged.get(id))).toEqual(ids.slice(1).map(() => 1));
    expect(judged.get(poison)).toBe(2); // delivered twice, then parked
    const counts = await h.appliedCounts('batched-hook', ids);
    expect(counts.map((r) => r.event_id).sort()).toEqual(ids.filter((id) => id !== poison).sort());
    expect(counts.every((r) => r.n === 1)).toBe(true);
    expect(await h.sql(`SELECT event_id FROM parked_events WHERE consumer = 'batched-hook' AND reason = 'failed'`)).toEqual([{ event_id: poison }]);
    expect(await h.sql(`SELECT count(*)::int AS n FROM consumed_events WHERE consumer = 'batched-hook' AND event_id = ?`, [poison])).toEqual([{ n: 0 }]);
    expect(await consumedOutcomes(metrics)).toMatchObject({ parked: 1 });
  });
});
