import { NatsError } from 'nats';
import { isPermanentJetStreamError, retryJetStreamSetup } from './jetstream-setup';

function apiError(code: number, description: string): NatsError {
  const e = new NatsError(description, String(code));
  e.api_error = { code, description, err_code: 10000 + code };
  return e;
}

describe('retryJetStreamSetup', () => {
  const waits: number[] = [];
  const sleep = (ms: number) => {
    waits.push(ms);
    return Promise.resolve();
  };
  beforeEach(() => waits.splice(0));
  /** A setup call that always fails with `err`, and how often it was called. */
  const alwaysFailing = (err: Error) => {
    let calls = 0;
    return {
      fn: async () => {
        calls++;
        throw err;
      },
      calls: () => calls,
    };
  };

  it('tries a timed-out or leaderless call again, waiting twice as long each time up to 2 s', async () => {
    let calls = 0;
    const failures = [
      new NatsError('TIMEOUT', 'TIMEOUT'),
      apiError(503, 'JetStream system temporarily unavailable'),
      ...Array.from({ length: 6 }, () => apiError(404, 'consumer not found')),
    ];
    const got = await retryJetStreamSetup(
      'consumer setup',
      async () => {
        const f = failures[calls++];
        if (f) throw f;
        return 'made';
      },
      { sleep },
    );
    expect(got).toBe('made');
    expect(calls).toBe(9);
    expect(waits).toEqual([100, 200, 400, 800, 1600, 2000, 2000, 2000]);
  });

  it('gives up on a 400 at once: asking again cannot change a clashing config', async () => {
    const clash = apiError(400, 'consumer name already in use');
    const setup = alwaysFailing(clash);
    await expect(retryJetStreamSetup('consumer setup', setup.fn, { sleep })).rejects.toBe(clash);
    expect(setup.calls()).toBe(1);
    expect(waits).toEqual([]);
    expect(isPermanentJetStreamError(clash)).toBe(true);
    expect(isPermanentJetStreamError(apiError(503, 'x'))).toBe(false);
    // What nats.js rejects with when the user may not publish to $JS.API.* (seen against a
    // nats-server whose user denies it: in 4 ms, with no api_error).
    expect(isPermanentJetStreamError(new NatsError('Permissions Violation for Publish to "$JS.API.INFO"', 'PERMISSIONS_VIOLATION'))).toBe(true);
    expect(isPermanentJetStreamError(new NatsError('Authorization Violation', 'AUTHORIZATION_VIOLATION'))).toBe(true);
    expect(isPermanentJetStreamError(new NatsError('TIMEOUT', 'TIMEOUT'))).toBe(false);
    expect(isPermanentJetStreamError(new Error('x'))).toBe(false);
  });

  it('gives up at once when the bus refuses the user the JetStream API', async () => {
    const denied = new NatsError('Permissions Violation for Publish to "$JS.API.INFO"', 'PERMISSIONS_VIOLATION');
    const setup = alwaysFailing(denied);
    await expect(retryJetStreamSetup('jetstream manager', setup.fn, { sleep })).rejects.toBe(denied);
    expect(setup.calls()).toBe(1);
    expect(waits).toEqual([]);
  });

  it('throws the last failure once the next wait would pass the deadline', async () => {
    const down = new NatsError('TIMEOUT', 'TIMEOUT');
    const setup = alwaysFailing(down);
    await expect(retryJetStreamSetup('stream setup', setup.fn, { deadlineMs: 250, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) })).rejects.toBe(down);
    // 100 ms, then 200 ms would end past 250 ms: two calls.
    expect(setup.calls()).toBe(2);
  });
});
