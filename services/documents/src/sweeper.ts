import type { Logger, Orm } from '@acct/kit';
import { deletePending, stalePending } from './queries';
import type { Storage } from './storage';

/**
 * Removes uploads reserved but never finalized (a gateway that died mid-upload): object first,
 * then the row, so a crash in between leaves a row the next sweep retries, never an orphan object.
 */
export class Sweeper {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly orm: Orm,
    private readonly storage: Storage,
    private readonly ttlMs: number,
    private readonly log: Logger,
  ) {}

  async sweepOnce(now = new Date()): Promise<number> {
    const stale = await stalePending(this.orm.em.fork(), new Date(now.getTime() - this.ttlMs), 100);
    let removed = 0;
    for (const row of stale) {
      await this.storage.delete(row.storage_key);
      if (await deletePending(this.orm.em.fork(), row.id)) removed++;
    }
    return removed;
  }

  start(): void {
    const every = Math.min(this.ttlMs, 60_000);
    this.timer = setInterval(() => {
      this.sweepOnce().catch((err) => this.log.warn({ err }, 'pending upload sweep failed'));
    }, every);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
