import { TokenBuckets } from './rate-limit';

const T0 = 1_700_000_000_000;

describe('TokenBuckets', () => {
  it('lets a new key spend its whole burst at one instant, then refuses', () => {
    const b = new TokenBuckets(10, 5);
    for (let i = 0; i < 5; i++) {
      const d = b.take('k', T0);
      expect(d.allowed).toBe(true);
      expect(d.retryAfterSeconds).toBe(0);
    }
    const refused = b.take('k', T0);
    expect(refused.allowed).toBe(false);
    expect(refused.remaining).toBe(0);
    expect(refused.limit).toBe(5);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(refused.retryAfterSeconds)).toBe(true);
    expect(b.take('k', T0).allowed).toBe(false);
  });

  it('reports limit = burst and a remaining count that goes down by one per request', () => {
    const b = new TokenBuckets(50, 100);
    const remaining: number[] = [];
    for (let i = 0; i < 4; i++) {
      const d = b.take('k', T0);
      expect(d.limit).toBe(100);
      remaining.push(d.remaining);
    }
    expect(remaining).toEqual([99, 98, 97, 96]);
  });

  it('refuses with a Retry-After long enough for one token at a slow rate', () => {
    const b = new TokenBuckets(0.5, 1);
    expect(b.take('k', T0).allowed).toBe(true);
    const d = b.take('k', T0);
    expect(d.allowed).toBe(false);
    expect(d.retryAfterSeconds).toBe(2);
    expect(b.take('k', T0 + 1999).allowed).toBe(false);
    expect(b.take('k', T0 + 4000).allowed).toBe(true);
  });

  it('a refused request does not consume a token', () => {
    const b = new TokenBuckets(1, 1);
    b.take('k', T0);
    for (let i = 0; i < 5; i++) expect(b.take('k', T0).allowed).toBe(false);
    expect(b.take('k', T0 + 1000).allowed).toBe(true);
  });

  it('refills at the configured rate', () => {
    const b = new TokenBuckets(10, 5);
    for (let i = 0; i < 5; i++) b.take('k', T0);
    expect(b.take('k', T0 + 50).allowed).toBe(false); // half a token
    expect(b.take('k', T0 + 100).allowed).toBe(true); // one token after 100 ms
    expect(b.take('k', T0 + 100).allowed).toBe(false);
    const later = b.take('k', T0 + 400); // three more tokens
    expect(later.allowed).toBe(true);
    expect(later.remaining).toBe(2);
  });

  it('never refills above the burst, however long the key was idle', () => {
    const b = new TokenBuckets(10, 5);
    for (let i = 0; i < 5; i++) b.take('k', T0);
    const t = T0 + 24 * 3600 * 1000;
    const first = b.take('k', t);
    expect(first.allowed).toBe(true);
    expect(first.remaining).toBe(4);
    let allowed = 1;
    while (b.take('k', t).allowed) allowed++;
    expect(allowed).toBe(5);
  });

  it('resetSeconds is the time to refill the bucket completely', () => {
    const b = new TokenBuckets(2, 10);
    expect(b.take('k', T0).resetSeconds).toBe(1); // 1 token missing at 2/s -> 0.5 s -> 1
    for (let i = 0; i < 9; i++) b.take('k', T0);
    expect(b.take('k', T0).resetSeconds).toBe(5); // empty: 10 tokens at 2/s
  });

  it('keeps a bucket per key', () => {
    const b = new TokenBuckets(1, 3);
    for (let i = 0; i < 3; i++) b.take('a', T0);
    expect(b.take('a', T0).allowed).toBe(false);
    const other = b.take('b', T0);
    expect(other.allowed).toBe(true);
    expect(other.remaining).toBe(2);
    expect(b.take('a', T0).allowed).toBe(false);
    expect(b.size).toBe(2);
  });

  it('forgets only fully refilled buckets when it sweeps, without changing decisions', () => {
    const b = new TokenBuckets(1, 5);
    for (let i = 0; i < 5; i++) b.take('drained', T0);
    b.take('idle', T0);
    let calls = 6;
    while (calls < 9_999) {
      b.take('hot', T0);
      calls++;
    }
    expect(b.size).toBe(3);
    b.take('hot', T0 + 2000); // call 10 000 sweeps at T0 + 2 s
    // 'idle' had 4 tokens + 2 refilled >= 5: dropped. 'drained' has only 2: kept.
    expect(b.size).toBe(2);
    const d = b.take('drained', T0 + 2000);
    expect(d.allowed).toBe(true);
    expect(d.remaining).toBe(1);
  });
});

describe('a clock that steps backwards', () => {
  it('neither refills nor takes tokens away', () => {
    const b = new TokenBuckets(1, 5);
    b.take('k', 10_000);
    const d = b.take('k', 5_000);
    expect(d.allowed).toBe(true);
    expect(d.remaining).toBe(3);
  });
});
