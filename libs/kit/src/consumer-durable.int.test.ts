import { randomUUID } from 'node:crypto';
import { AckPolicy, DeliverPolicy, connect } from 'nats';
import { eventsStreamName } from '@acct/contracts';
import { NATS_URL, waitFor } from '@acct/testing';
import { DEFAULT_ACK_WAIT_MS } from './consumer';
import { ConsumerHarness, signal } from './testing/consumer-harness';

/** The durable consumer: remade under a running consumer, an event orphaned by a dead one, one held past the ack wait. */
describe('EventConsumer against real Postgres and JetStream: its durable: remade, orphaned, held past the ack wait', () => {
  const h = new ConsumerHarness('acct_kit_consumer_durable');
  beforeAll(h.start);
  afterAll(h.stop);

  it('a consumer whose durable is deleted and made again (a rebuild on another replica) pulls again within seconds', async () => {
    const own = `${h.prefix}.events.remade`;
    const { c } = h.consumer('remade', { filterSubject: own });
    await c.start();
    const stream = eventsStreamName(h.prefix);
    const publishOwn = async (id: string) => (await h.nc.jetstream().publish(own, new TextEncoder().encode(JSON.stringify({ id, type: 'invoice.posted' })))).seq;
    const ackedUpTo = (seq: number, ms: number) => waitFor(async () => (await h.jsm.consumers.info(stream, 'remade')).ack_floor.stream_seq >= seq, ms);
    const [before, after] = [randomUUID(), randomUUID()];
    await ackedUpTo(await publishOwn(before), 15_000);
    // What a rebuild does: the durable goes, and comes back (delivering from the first message).
    const { config } = await h.jsm.consumers.info(stream, 'remade');
    await h.jsm.consumers.delete(stream, 'remade');
    await new Promise((r) => setTimeout(r, 200)); // the pull requests in flight hear of the deletion
    await h.jsm.consumers.add(stream, config);
    const started = Date.now();
    // The pull that was waiting went with the old durable; nats.js pulls again once its idle
    // heartbeat is missed: with the default expires (30 s) after ~30 s, with 5 s after ~7 s.
    await ackedUpTo(await publishOwn(after), 15_000);
    console.log(`remade durable: pulled again and applied ${Date.now() - started} ms after it was made again`);
    await c.stop();
    expect((await h.appliedCounts('remade', [before, after])).map((r) => r.n)).toEqual([1, 1]);
  }, 30_000);

  // Well under the 30 s the server's default ack wait would take.
  it('an event held by a consumer that dies unacked goes to another consumer of the durable within the ack wait, set on a durable made before too', async () => {
    const own = `${h.prefix}.events.orphaned`;
    const stream = eventsStreamName(h.prefix);
    // The durable as an earlier version made it: the server's 30 s ack wait.
    await h.jsm.consumers.add(stream, { durable_name: 'orphaned', ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, filter_subject: own, ack_wait: 30_000 * 1e6 });
    const id = randomUUID();
    const held = signal();
    const killed = signal();
    const dying = await connect({ servers: NATS_URL });
    // Its apply takes the event and waits until its connection is gone, then fails (rolled back, as a dead process's transaction).
    const first = h.consumer('orphaned', {
      filterSubject: own,
      nc: dying,
      entered: async () => {
        held.resolve();
        await killed.promise;
        throw new Error('killed');
      },
    });
    const taken = signal<number>();
    const second = h.consumer('orphaned', { filterSubject: own, entered: (e) => void (e.id === id && taken.resolve(Date.now())) });
    try {
      await first.c.start();
      expect((await h.jsm.consumers.info(stream, 'orphaned')).config.ack_wait).toBe(DEFAULT_ACK_WAIT_MS * 1e6);
      await h.nc.jetstream().publish(own, new TextEncoder().encode(JSON.stringify({ id, type: 'invoice.posted' })));
      await held.promise; // the first consumer holds it
      await second.c.start();
      await dying.close(); // no ack, no nak: what the server sees of a kill -9
      const closedAt = Date.now();
      killed.resolve();
      const redeliveredAt = await taken.promise;
      await waitFor(async () => (await h.appliedCounts('orphaned', [id])).length === 1, 10_000);
      console.log(`an event held by a dead consumer was taken by another ${redeliveredAt - closedAt} ms later (ack wait ${DEFAULT_ACK_WAIT_MS} ms)`);
      expect(await h.appliedCounts('orphaned', [id])).toEqual([{ event_id: id, n: 1 }]);
    } finally {
      killed.resolve();
      await dying.close();
      await second.c.stop();
      await first.c.stop();
    }
  }, 20_000);

  it('a live consumer keeps an event it works on for longer than the ack wait: delivered once, no other consumer gets it', async () => {
    const own = `${h.prefix}.events.slow`;
    const ACK_WAIT_MS = 1000;
    const id = randomUUID();
    const started = signal();
    const entries: string[] = [];
    // Three ack waits of work: only its in-progress acks keep the server from redelivering it meanwhile.
    const slow = h.consumer('slow', {
      filterSubject: own,
      ackWaitMs: ACK_WAIT_MS,
      entered: async (e) => {
        entries.push(`slow ${e.id}`);
        started.resolve();
        await new Promise((r) => setTimeout(r, 3 * ACK_WAIT_MS));
      },
    });
    const other = h.consumer('slow', { filterSubject: own, ackWaitMs: ACK_WAIT_MS, entered: (e) => void entries.push(`other ${e.id}`) });
    await slow.c.start();
    await h.nc.jetstream().publish(own, new TextEncoder().encode(JSON.stringify({ id, type: 'invoice.posted' })));
    await started.promise;
    await other.c.start();
    const stream = eventsStreamName(h.prefix);
    await waitFor(async () => (await h.jsm.consumers.info(stream, 'slow')).num_ack_pending === 0, 15_000);
    const info = await h.jsm.consumers.info(stream, 'slow');
    await other.c.stop();
    await slow.c.stop();
    expect([info.num_redelivered, info.delivered.consumer_seq, info.delivered.stream_seq]).toEqual([0, 1, info.ack_floor.stream_seq]);
    expect(entries).toEqual([`slow ${id}`]);
    expect(await h.appliedCounts('slow', [id])).toEqual([{ event_id: id, n: 1 }]);
  }, 30_000);
});
