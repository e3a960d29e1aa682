import { connect, type NatsConnection } from 'nats';
import { NATS_URL, uniquePrefix } from '@acct/testing';
import { publishInTurn } from './turn-publish';

const nextTurn = () => new Promise((r) => setImmediate(r));

describe('publishInTurn over real NATS', () => {
  let nc: NatsConnection;
  beforeEach(async () => {
    nc = await connect({ servers: NATS_URL });
  });
  afterEach(async () => {
    if (!nc.isClosed()) await nc.drain();
  });

  it("holds a turn's publishes until the turn ends, then makes them all, in order", async () => {
    const subject = `${uniquePrefix()}.turn`;
    const got: string[] = [];
    const all = new Promise<void>((resolve) => {
      nc.subscribe(subject, { max: 50, callback: (_e, m) => got.push(m.string()) && got.length === 50 && resolve() });
    });
    await nc.flush();
    const before = nc.stats().outMsgs;
    for (let i = 0; i < 50; i++) publishInTurn(nc, subject, new TextEncoder().encode(String(i)));
    await Promise.resolve(); // a microtask later: nats.js would have flushed publishes made at once
    expect(nc.stats().outMsgs).toBe(before);
    await nextTurn();
    expect(nc.stats().outMsgs).toBe(before + 50);
    await all;
    expect(got).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
  });

  it('gives what a publish threw to its onError (the connection closed before the turn ended)', async () => {
    const errors: unknown[] = [];
    publishInTurn(nc, 'anything', new Uint8Array(1), undefined, (e) => errors.push(e));
    await nc.close();
    await nextTurn();
    expect(errors).toHaveLength(1);
  });
});
