import { type Outbox, type ServiceMetrics, scopeKey, scopeOf } from '@acct/kit';
import { type Committed, type Member, type UnitOfWork, refuseLedgerError } from './unit-of-work';

/** Most works one group takes (the rest go to the next group, started at once). */
export const GROUP_MAX = 32;

/** Most groups running at once, of different organizations (see GroupCommit). */
export const GROUPS_IN_FLIGHT = 4;

interface Queued extends Member {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/**
 * Group commit: the works that arrive while their organization's group runs (up to GROUP_MAX) form
 * the next group, ONE unit of work (UnitOfWork.commit): one transaction, their entries, lines and
 * outbox rows written in one statement, their events published in one go after the one COMMIT. A
 * work alone is a group of one: the same code.
 *
 * The failure rule (settle): a group that fails (a work throws, or COMMIT refuses) was rolled back
 * whole; it is split in two halves, each committed the same way, one after the other, until the
 * failing work is alone: its failure is then its own answer, and every other work commits. A work
 * must therefore be safe to run again after a rollback (as for retryOnceOnUnique), and must not
 * depend on running in a transaction of its own.
 *
 * Why one group per organization and environment at a time: the groups of one organization
 * serialize on its journal chain head (libs/ledger, locked from the chained write to COMMIT). A
 * second group of it started at once would only wait for that lock, holding a connection; held
 * back, its works gather into the next group, which starts as soon as the first one's transaction
 * ended. Other organizations' works start their own groups meanwhile (at most GROUPS_IN_FLIGHT in
 * all). docs/performance.md has the measurements behind both limits.
 */
export class GroupCommit {
  /** Works queued for the next group, whether a flush is scheduled, and the groups running. */
  private queued: Queued[] = [];
  private flushScheduled = false;
  private groupsInFlight = 0;
  /** The scopes (organization and environment) of the groups running: each in one group at a time. */
  private readonly scopesRunning = new Set<string>();

  constructor(
    private readonly unit: UnitOfWork,
    private readonly outbox: Pick<Outbox, 'publish'>,
    private readonly metrics?: Pick<ServiceMetrics, 'groupCommits'>,
  ) {}

  /** Queues a work for its scope's next group; settles with its own outcome. */
  enqueue(member: Member): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queued.push({ ...member, resolve, reject });
      this.scheduleFlush();
    });
  }

  /** Runs `member` now as a group of one, outside the queue (the same code as any group). */
  now(member: Member): Promise<unknown> {
    return new Promise((resolve, reject) => {
      void this.run([{ ...member, resolve, reject }], () => undefined).catch(reject);
    });
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.queued.length === 0 || this.groupsInFlight >= GROUPS_IN_FLIGHT) return;
    this.flushScheduled = true;
    setImmediate(() => this.flushGroups());
  }

  private flushGroups(): void {
    this.flushScheduled = false;
    while (this.queued.length > 0 && this.groupsInFlight < GROUPS_IN_FLIGHT) {
      const { group, scopes } = this.nextGroup();
      if (group.length === 0) return; // every queued work's scope is running: flushed when one ends
      for (const key of scopes) this.scopesRunning.add(key);
      this.groupsInFlight++;
      let released = false;
      // The group's organizations are free again once its transactions ended: their chain heads are
      // unlocked at COMMIT, so the next group of them need not wait for this one's publish.
      const release = () => {
        if (released) return;
        released = true;
        this.groupsInFlight--;
        for (const key of scopes) this.scopesRunning.delete(key);
        this.scheduleFlush();
      };
      void this.run(group, release)
        .catch((e: unknown) => group.forEach((q) => q.reject(e)))
        .finally(release);
    }
  }

  /** Takes the queued works, in order, of the scopes no running group holds (up to GROUP_MAX). */
  private nextGroup(): { group: Queued[]; scopes: Set<string> } {
    const group: Queued[] = [];
    const scopes = new Set<string>();
    const waiting: Queued[] = [];
    for (const q of this.queued) {
      const key = scopeKey(scopeOf(q.ctx));
      if (group.length < GROUP_MAX && !this.scopesRunning.has(key)) {
        group.push(q);
        scopes.add(key);
      } else waiting.push(q);
    }
    this.queued = waiting;
    return { group, scopes };
  }

  /** Commits a group (settle); calls `release` once its transactions ended, then publishes and answers. */
  private async run(group: Queued[], release: () => void): Promise<void> {
    const committed: { group: Queued[]; done: Committed }[] = [];
    await this.settle(group, committed);
    release();
    await this.outbox.publish(committed.flatMap(({ done }) => done.pending));
    for (const c of committed) c.group.forEach((q, i) => q.resolve(c.done.results[i]));
  }

  /** The failure rule (GroupCommit): commits `group`, else its halves the same way, until a failing work is alone. */
  private async settle(group: Queued[], committed: { group: Queued[]; done: Committed }[]): Promise<void> {
    let done: Committed;
    try {
      done = await this.unit.commit(group);
    } catch (e) {
      if (group.length === 1) {
        this.metrics?.groupCommits.inc({ way: 'failed' });
        group[0]!.reject(refused(e));
        return;
      }
      this.metrics?.groupCommits.inc({ way: 'split' });
      const half = Math.ceil(group.length / 2);
      await this.settle(group.slice(0, half), committed);
      await this.settle(group.slice(half), committed);
      return;
    }
    this.metrics?.groupCommits.inc({ way: 'committed' });
    committed.push({ group, done });
  }
}

/** The error a work alone answers with (a ledger refusal becomes the caller's 422). */
function refused(e: unknown): unknown {
  try {
    return refuseLedgerError(e);
  } catch (mapped) {
    return mapped;
  }
}
