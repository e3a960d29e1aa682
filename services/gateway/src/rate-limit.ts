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

/**
 * Per-key token bucket: `ratePerSecond` tokens refill continuously up to `burst`. Alone it is this
 * process's limit; with a BucketSync (shared-buckets.ts) it is a local view of a bucket shared by
 * every gateway replica: what it took since the last sync is `used`, and a sync replaces its tokens
 * by the shared bucket's (less what was taken meanwhile).
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number; used: number }>();
  private calls = 0;
  /** Set by a BucketSync: count what is taken between syncs (and keep such buckets until synced). */
  shared = false;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
  ) {}

  take(key: string, nowMs = Date.now()): BucketDecision {
    if (++this.calls % IDLE_SWEEP_EVERY === 0) this.sweep(nowMs);
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: nowMs, used: 0 };
    // A wall clock that steps back (NTP) refills nothing rather than taking tokens away.
    b.tokens = Math.min(this.burst, b.tokens + (Math.max(0, nowMs - b.at) / 1000) * this.ratePerSecond);
    b.at = Math.max(b.at, nowMs);
    const allowed = b.tokens >= 1;
    if (allowed) {
      b.tokens -= 1;
      if (this.shared) b.used += 1;
    }
    this.buckets.set(key, b);
    return {
      allowed,
      limit: this.burst,
      remaining: Math.max(0, Math.floor(b.tokens)),
      resetSeconds: Math.ceil((this.burst - b.tokens) / this.ratePerSecond),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / this.ratePerSecond)),
    };
  }

  /** Forget buckets that have refilled completely (and owe no sync): they hold nothing a new bucket would not. */
  private sweep(nowMs: number): void {
    for (const [k, b] of this.buckets) {
      if (b.used === 0 && b.tokens + ((nowMs - b.at) / 1000) * this.ratePerSecond >= this.burst) this.buckets.delete(k);
    }
  }

  /** Every bucket held here with the tokens taken since the last drain (then zero): what a sync sends. */
  drain(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [k, b] of this.buckets) {
      out.set(k, b.used);
      b.used = 0;
    }
    return out;
  }

  /** Takes the shared bucket's tokens as of nowMs, less what this process took since the drain. */
  adopt(key: string, sharedTokens: number, nowMs = Date.now()): void {
    const b = this.buckets.get(key);
    if (!b) return;
    b.tokens = Math.min(this.burst, sharedTokens - b.used);
    b.at = Math.max(b.at, nowMs);
  }

  get size(): number {
    return this.buckets.size;
  }
}
