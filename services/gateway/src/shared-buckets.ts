import type { Counter } from 'prom-client';
import type { Logger, Orm } from '@acct/kit';
import type { TokenBuckets } from './rate-limit';

/** Most keys sent in one statement (a sync sends more statements for more keys). */
const KEYS_PER_SYNC = 5000;
/** A warning about an unreachable store at most this often. */
const WARN_EVERY_MS = 60_000;

/**
 * Makes a TokenBuckets one budget across every gateway replica: every `intervalMs`, one statement
 * takes what this replica used per key from the shared bucket in Postgres (refilled at the same rate
 * up to the same burst, by the database's clock) and brings back its tokens, which become the local
 * view. Between two syncs each replica decides alone from its view, so the replicas together may
 * take up to (replicas − 1) × burst more than one bucket would; that overdraft is kept as debt in
 * the shared bucket (down to −burst) and paid back by refusing later, so over any longer window a
 * key gets its rate plus at most about 2 × burst per replica. If the store cannot be reached, each
 * replica goes on with its own buckets (fail open: the limit becomes per replica), counted in
 * `rate_limit_store_errors_total` and logged.
 */
export class BucketSync {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private lastWarn = 0;

  constructor(private readonly o: { orm: Orm; name: string; buckets: TokenBuckets; intervalMs: number; log: Logger; errors?: Counter }) {
    o.buckets.shared = true;
  }

  start(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.sync().finally(() => (this.running = undefined));
    }, this.o.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One round trip: send what was used per key, adopt the shared tokens. */
  async sync(): Promise<void> {
    const all = [...this.o.buckets.drain()];
    for (let i = 0; i < all.length; i += KEYS_PER_SYNC) await this.syncSome(all.slice(i, i + KEYS_PER_SYNC));
  }

  private async syncSome(used: [string, number][]): Promise<void> {
    const { buckets, name } = this.o;
    try {
      const rows = await this.o.orm.em
        .fork()
        .getConnection()
        .execute<{ key: string; tokens: number }[]>(
          `INSERT INTO rate_buckets AS b (bucket, key, tokens, at)
           SELECT ?, t.k, ?::float8 - t.u, now() FROM json_to_recordset(?::json) AS t(k text, u float8)
           ON CONFLICT (bucket, key) DO UPDATE SET
             tokens = greatest(least(?::float8, b.tokens + greatest(0, extract(epoch FROM now() - b.at)) * ?::float8) - (?::float8 - EXCLUDED.tokens), -?::float8),
             at = greatest(b.at, now())
           RETURNING key, tokens`,
          [name, buckets.burst, JSON.stringify(used.map(([k, u]) => ({ k, u }))), buckets.burst, buckets.ratePerSecond, buckets.burst, buckets.burst],
        );
      const now = Date.now();
      for (const r of rows) buckets.adopt(r.key, Number(r.tokens), now);
    } catch (err) {
      this.o.errors?.inc();
      if (Date.now() - this.lastWarn > WARN_EVERY_MS) {
        this.lastWarn = Date.now();
        this.o.log.warn({ err, bucket: name }, 'rate-limit store unreachable: limits are per replica until it is back');
      }
    }
  }
}
