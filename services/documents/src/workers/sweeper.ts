import type { Logger, Orm } from '@acct/kit';
import { discardPending, discardedObjects, forgetDiscarded, stalePending } from '../queries';
import type { Storage } from '../adapters/storage';

/** How often the sweeper runs at most, ms: a discarded upload's object is deleted this soon after the store answers again. */
const SWEEP_EVERY_MS = 30_000;

/**
 * Removes what failed uploads leave behind. Reservations never finalized (a gateway or documents
 * instance that died mid-upload) are discarded after the TTL: the row goes and its key is queued
 * in discarded_objects (one statement). Then every queued object is deleted, object first and its
 * queue entry after, so a store that is down keeps the key for the next sweep, never an orphan.
 */
export class Sweeper {
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly orm: Orm,
    private readonly storage: Storage,
    private readonly ttlMs: number,
    private readonly log: Logger,
  ) {}

  /** Stale reservations discarded (their objects are deleted in the same sweep when the store answers). */
  async sweepOnce(now = new Date()): Promise<number> {
    const stale = await stalePending(this.orm.em.fork(), new Date(now.getTime() - this.ttlMs), 100);
    let removed = 0;
    for (const row of stale) if (await discardPending(this.orm.em.fork(), row.id)) removed++;
    // Each delete is bounded (S3_TIMEOUT_MS); the first failure ends the sweep, the next one retries.
    for (const key of await discardedObjects(this.orm.em.fork(), 100)) {
      await this.storage.delete(key);
      await forgetDiscarded(this.orm.em.fork(), key);
    }
    return removed;
  }

  start(): void {
    const every = Math.min(this.ttlMs, SWEEP_EVERY_MS);
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = true;
      this.sweepOnce()
        .catch((err) => this.log.warn({ err }, 'pending upload sweep failed'))
        .finally(() => (this.running = false));
    }, every);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
