import { randomUUID } from 'node:crypto';
import { eventsStreamName } from '@acct/contracts';
import { waitFor } from '@acct/testing';
import { ConsumerHarness, consumedOutcomes } from './testing/consumer-harness';

/** Claims in one statement per batch (copies are duplicates), lingerMs gathering a batch, hurry() cutting the wait short. */
describe('EventConsumer against real Postgres and JetStream: claims in batches, lingerMs and hurry()', () => {
  const h = new ConsumerHarness('acct_kit_consumer_batches');
  beforeAll(h.start);
  afterAll(h.stop);

  it.each([
    ['apply', 'claim-apply'],
    ['applyBatch', 'claim-batch'],
  ])('claims a batch in one statement (%s): copies inside a batch and across batches are duplicates, each event applied once', async (how, name) => {
    const batches = how === 'applyBatch' ? ([] as number[]) : undefined;
    const before = (await h.jsm.streams.info(eventsStreamName(h.prefix))).state.last_seq;
    const ids = Array.from({ length: 20 }, () => randomUUID());
    // In the stream before the consumer starts (delivered together): each id twice, the copy of one in upper case.
    const firstSeqs = await h.publishCopies(ids);
    await h.publishCopies([...ids.slice(0, 19), ids[19]!.toUpperCase()]);
    const { c, metrics } = h.consumer(name, { batches });
    await c.start();
    await h.ackedAll(name);
    await c.stop();
    // Across batches: copies of some after a restart, with new events.
    const more = Array.from({ length: 5 }, () => randomUUID());
    await h.publishCopies([...ids.slice(0, 5), ...more, ...more.slice(0, 2)]);
    const { c: again, metrics: againMetrics } = h.consumer(name, { batches });
    await again.start();
    await h.ackedAll(name);
    await again.stop();

    const counts = await h.appliedCounts(name, [...ids, ...more]);
    expect(counts).toHaveLength(ids.length + more.length);
    expect(counts.every((r) => r.n === 1)).toBe(true);
    // The claim keeps the stream position of the first copy.
    const claims = (await h.sql(`SELECT event_id::text AS id, stream_seq::int AS seq FROM consumed_events WHERE consumer = ? AND event_id = ANY(?::uuid[])`, [
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
    const { c } = h.consumer('linger', { batches, lingerMs: 2000 });
    await c.start();
    await h.ackedAll('linger'); // the earlier tests' events first
    const drained = batches.length;
    const ids = Array.from({ length: 10 }, () => randomUUID());
    for (const id of ids) await h.publishCopies([id]); // ten publishes, each acked by the stream before the next
    await h.ackedAll('linger');
    await c.stop();
    expect(batches.slice(drained)).toEqual([10]);
    expect((await h.appliedCounts('linger', ids)).map((r) => r.n)).toEqual(Array<number>(10).fill(1));
  });

  it('hurry(upTo): a lingering batch holding an event up to upTo is applied at once, so is such an event arriving later, and later events linger', async () => {
    const batches: number[] = [];
    // Lingering ten minutes: without hurry() nothing below would be applied within the test's waits.
    // Its own subject: no earlier test's event to drain first.
    const own = `${h.prefix}.events.hurry`;
    const { c } = h.consumer('hurried', { batches, lingerMs: 600_000, filterSubject: own });
    await c.start();
    const info = () => h.jsm.consumers.info(eventsStreamName(h.prefix), 'hurried');
    const publishOwn = async (id: string) => (await h.nc.jetstream().publish(own, new TextEncoder().encode(JSON.stringify({ id, type: 'invoice.posted' })))).seq;
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
    expect((await h.appliedCounts('hurried', [lingering, arriving, later, marker])).map((r) => r.n)).toEqual([1, 1, 1, 1]);
  });
});
