import type { NatsConnection } from 'nats';
import { AppError } from '@acct/contracts';
import { Freshness } from './freshness';

/** A Freshness whose stream and consumer positions are scripted. */
function scripted(positions: () => { lastSeq: number; ackFloor: number }, waitMs = 200, hurry?: (upTo: number) => void): Freshness {
  const f = new Freshness({} as NatsConnection, 'acct', 'reporting-postings', { waitMs, pollMs: 5, hurry });
  f.positions = () => Promise.resolve(positions());
  return f;
}

describe('read-your-writes (Freshness)', () => {
  it('answers at once when the consumer has acknowledged the last sequence', async () => {
    await expect(scripted(() => ({ lastSeq: 7, ackFloor: 7 })).awaitCaughtUp()).resolves.toBeUndefined();
  });

  it('waits until the ack floor reaches the sequence noted first, not a later one', async () => {
    let calls = 0;
    // A bound far beyond the four polls: on a loaded machine timers fire late, and this is not about the bound.
    const f = scripted(() => {
      calls += 1;
      return calls === 1 ? { lastSeq: 10, ackFloor: 8 } : { lastSeq: 10 + calls, ackFloor: calls >= 4 ? 10 : 9 };
    }, 60_000);
    await f.awaitCaughtUp();
    expect(calls).toBe(4);
  });

  it('hurries the consumer up to the sequence noted first, before every poll while it waits, and not at all when caught up', async () => {
    let hurried = 0;
    await scripted(
      () => ({ lastSeq: 3, ackFloor: 3 }),
      60_000,
      () => (hurried += 1),
    ).awaitCaughtUp();
    expect(hurried).toBe(0);
    let calls = 0;
    const hurriedAt: [number, number][] = [];
    const f = scripted(
      () => {
        calls += 1;
        // Events keep arriving after the first reading: those after 10 are not this read's to hurry.
        return { lastSeq: 9 + calls, ackFloor: calls >= 3 ? 10 : 9 };
      },
      60_000,
      (upTo) => hurriedAt.push([calls, upTo]),
    );
    await f.awaitCaughtUp();
    // After the first reading, then after the second (the third finds it caught up); always up to 10.
    expect(hurriedAt).toEqual([
      [1, 10],
      [2, 10],
    ]);
  });

  it('gives up after its bound with service_unavailable, never a stale answer', async () => {
    const started = Date.now();
    const err = await scripted(() => ({ lastSeq: 5, ackFloor: 4 }), 100)
      .awaitCaughtUp()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('service_unavailable');
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it('answers service_unavailable during a rebuild and when the stream cannot be read', async () => {
    const f = scripted(() => ({ lastSeq: 1, ackFloor: 1 }));
    f.rebuilding = true;
    await expect(f.awaitCaughtUp()).rejects.toMatchObject({ code: 'service_unavailable' });
    const broken = scripted(() => {
      throw new Error('no stream');
    });
    await expect(broken.awaitCaughtUp()).rejects.toMatchObject({ code: 'service_unavailable' });
  });
});
