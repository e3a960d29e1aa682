import type { TrustedContext } from '@acct/contracts';
import { type Orm, type Outbox, type RpcServer, type ServiceMetrics, type ServiceWiring, scopeOf } from '@acct/kit';
import { registerChainVerification } from './chain';
import { GroupCommit } from './grouping';
import { type Db, type GroupBatch, type Tx, UnitOfWork } from './unit-of-work';

/**
 * The books of one posting service (receivables, payables, ...): every posting is written one way,
 * a unit of work (unit-of-work.ts) that runs the state change, its journal entries and their outbox
 * rows in ONE Postgres transaction; after commit (and before the caller replies) the rows are
 * published to JetStream. A rollback leaves no row, so nothing is published for it. Units are
 * groups (grouping.ts): a work alone is a group of one, and a failed group is split by one rule.
 */
export class Books {
  private readonly groups: GroupCommit;

  constructor(
    readonly orm: Orm,
    outbox: Outbox,
    prefix: string,
    service: ServiceWiring['name'],
    metrics?: Pick<ServiceMetrics, 'groupCommits'>,
  ) {
    this.groups = new GroupCommit(new UnitOfWork(orm, outbox, prefix, service), outbox, metrics);
  }

  /** A Db for work that needs no transaction of its own (a single insert, reads). */
  db(ctx: TrustedContext): Db {
    return { em: this.orm.em.fork(), scope: scopeOf(ctx) };
  }

  /**
   * A work as a group of one, at once (not queued behind its organization's group): for a work
   * that must not share its transaction with others' batches (e.g. a change of the lock date, which
   * a batch of posts reads before its works run), or that holds row locks of its own for long.
   */
  async transact<T>(ctx: TrustedContext, work: (tx: Tx) => Promise<T>): Promise<T> {
    return (await this.groups.now({ ctx, work })) as T;
  }

  /**
   * A work in its organization's next group (grouping.ts GroupCommit): with the works that arrive
   * while the group before runs, in one transaction; `batch` makes its first statement with theirs
   * (GroupBatch), and the work gets its result.
   */
  transactGrouped<T, A = never, R = never>(ctx: TrustedContext, work: (tx: Tx, batched?: R) => Promise<T>, batch?: { kind: GroupBatch<A, R>; arg: A }): Promise<T> {
    return this.groups.enqueue({ ctx, work: work as (tx: Tx, batched?: unknown) => Promise<unknown>, batch }) as Promise<T>;
  }
}

/** The books of a wired posting service (its manifest entry says posts: true). */
export function booksOf(w: Pick<ServiceWiring, 'name' | 'orm' | 'outbox' | 'prefix'> & Partial<Pick<ServiceWiring, 'metrics'>>): Books {
  if (!w.outbox) throw new Error(`${w.name} posts, but it has no outbox: set posts: true in its SERVICE_MANIFEST entry`);
  return new Books(w.orm, w.outbox, w.prefix, w.name, w.metrics);
}

/** What registers the handlers of one resource of a posting service on its books. */
export type BooksRegistrar = (server: RpcServer, books: Books) => void;

/** The register step of a posting service: its books, then each resource's handlers in turn. */
export function registerOnBooks(wiring: ServiceWiring, registrars: readonly BooksRegistrar[]): void {
  const books = booksOf(wiring);
  for (const register of registrars) register(wiring.server, books);
  registerChainVerification(wiring.server, wiring.orm, wiring.name);
}
