export interface BucketDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until one token is available (only meaningful when refused). */
  retryAfterSeconds: number;
}

const IDLE_SWEEP_EVERY = 10_000;

/** Per-key token bucket: `ratePerSecond` tokens refill continuously up to `burst`. */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private calls = 0;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
  ) {}

  take(key: string, nowMs = Date.now()): BucketDecision {
    if (++this.calls % IDLE_SWEEP_EVERY === 0) this.sweep(nowMs);
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: nowMs };
    // A wall clock that steps back (NTP) refills nothing rather than taking tokens away.
    b.tokens = Math.min(this.burst, b.tokens + (Math.max(0, nowMs - b.at) / 1000) * this.ratePerSecond);
    b.at = Math.max(b.at, nowMs);
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    this.buckets.set(key, b);
    return {
      allowed,
      limit: this.burst,
      remaining: Math.floor(b.tokens),
      resetSeconds: Math.ceil((this.burst - b.tokens) / this.ratePerSecond),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / this.ratePerSecond)),
    };
  }

  /** Forget buckets that have refilled completely: they hold nothing a new bucket would not. */
  private sweep(nowMs: number): void {
    for (const [k, b] of this.buckets) {
      if (b.tokens + ((nowMs - b.at) / 1000) * this.ratePerSecond >= this.burst) this.buckets.delete(k);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}
