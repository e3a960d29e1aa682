import { randomUUID } from 'node:crypto';
import {
  AppError,
  BUS_ROLES,
  canonicalJson,
  type EmittedEventType,
  type EventMap,
  type PostingEvent,
  type PostingSource,
  type RpcOk,
  type ServiceName,
  type TrustedContext,
  isReferenceEventType,
  outboundSubject,
  postingSourceProblem,
  postingSubject,
  referenceSubject,
} from '@acct/contracts';
import {
  type EntityManager,
  type Logger,
  type Orm,
  OUTBOX_INSERT_SQL,
  type Outbox,
  type OutboxMessage,
  type Query,
  type RpcServer,
  type Scope,
  type ServiceMetrics,
  type ServiceWiring,
  scopeKey,
  scopeOf,
  statement,
  transactionQuery,
  withQuery,
} from '@acct/kit';
import { BooksLockCheck } from './books-lock';
import { registerChainVerification, stampEntryHashes } from './chain';
import {
  type AlsoInsert,
  type ChainGuard,
  ChainHeads,
  type EntryToWrite,
  type JournalEntryDraft,
  LedgerError,
  accountId,
  buildEntry,
  insertDefaultAccounts,
  insertJournalEntries,
  writeJournalEntriesGuarded,
} from '@acct/ledger';

/** Where a flow reads and writes: an EntityManager of its own and the tenancy of the request. */
export interface Db {
  em: EntityManager;
  scope: Scope;
}

/** What a money-moving operation can do inside its transaction. */
export interface Tx extends Db {
  /** Named statements on the transaction's own connection (hot paths on pg directly; see libs/kit sql). */
  sql: Query;
  /**
   * Writes a balanced journal entry and queues its posting event; returns the entry id (`entryId`
   * when given: a uuid the flow already wrote on its record in the same transaction).
   */
  post(draft: JournalEntryDraft, source: PostingSource, entryId?: string): Promise<string>;
  /**
   * 409 period_locked when `date` is on or before the books' lock date (books-lock.ts); post() checks
   * its entry's date itself. A flow calls this before its first change when it must refuse (or, for
   * an inbound event, fail) without writing anything.
   */
  assertOpen(date: string, field?: string): Promise<void>;
  /**
   * Queues an event of the catalogue: an outbound one (webhook) for the connected app of the
   * request, or a reference one (e.g. customer.created) for the services that keep copies.
   */
  emit<K extends EmittedEventType>(type: K, data: EventMap[K]): void;
}

/**
 * The first statement of a kind of work (e.g. the UPDATE that marks a draft invoice posted), made
 * ONCE for every work of that kind in a group commit, set-based, before the works run: `run` gets
 * each work's scope and argument in queue order and answers one result for each, or undefined for
 * a work it left to run its own statement (e.g. the second post of one invoice in a group). Each
 * work then gets its result (transactGrouped's `work(tx, batched)`) instead of running that
 * statement itself. So a group of N posts makes one round trip where it made N, inside the
 * section its organization's groups run one at a time. The group's works then behave as if every
 * batched statement had run first, in queue order: one of the serial orders of concurrent requests.
 */
export interface GroupBatch<A, R> {
  /** `lock`: the transaction's lock check, which the statement may feed (scopeLocks). */
  run(db: { sql: Query; em: EntityManager; lock: BooksLockCheck }, items: readonly { scope: Scope; arg: A }[]): Promise<readonly (R | undefined)[]>;
  /**
   * Optional, the group in ONE statement (Books' one-statement form, no BEGIN or COMMIT of its
   * own): reads, with no transaction and no lock, what each work would get from run() as if run()
   * had just run, and returns it with the guard (libs/ledger ChainGuard) that makes run()'s change
   * in the journal's statement only if nothing read has changed since (rows still as read, the
   * books' lock dates it primed in `lock` still in force: scopeLocks.guardPart). Null when any
   * work cannot go this way (not a draft, twice in the group, ...): the group then runs as usual.
   */
  read?(db: { sql: Query; em: EntityManager; lock: BooksLockCheck }, items: readonly { scope: Scope; arg: A }[]): Promise<{ results: readonly R[]; guard: ChainGuard } | null>;
}

/**
 * The books of one posting service (receivables, payables, ...). transact() runs the state change, its journal entries and
 * their outbox rows in ONE Postgres transaction; after commit (and before the caller replies) the
 * rows are published to JetStream. A rollback leaves no row, so nothing is published for it.
 */
export class Books {
  /** Scopes whose chart of accounts a committed transaction created (accounts are never deleted). */
  private readonly chartsCommitted = new Set<string>();

  constructor(
    readonly orm: Orm,
    private readonly outbox: Outbox,
    private readonly prefix: string,
    /** The owning service: its posting events go to `<prefix>.events.posting.<service>`. */
    private readonly service: ServiceName,
    private readonly metrics?: Pick<ServiceMetrics, 'groupCommits' | 'oneStatementFallbacks'>,
    private readonly log?: Logger,
  ) {}

  /** A Db for work that needs no transaction of its own (a single insert, reads). */
  db(ctx: TrustedContext): Db {
    return { em: this.orm.em.fork(), scope: scopeOf(ctx) };
  }

  async transact<T>(ctx: TrustedContext, work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.transactThen(ctx, work);
  }

  /** transact(), calling `committed` once the transaction ended (committed or not), before the publish. */
  private async transactThen<T>(ctx: TrustedContext, work: (tx: Tx) => Promise<T>, committed?: () => void): Promise<T> {
    const { results, pending } = await this.together([{ ctx, work }])
      .catch(refuseLedgerError)
      .finally(() => committed?.());
    await this.outbox.publish(pending);
    return results[0] as T;
  }

  /** What this process's last writes left as each chain's head (checked in the write: libs/ledger ChainHeads). */
  private readonly chainHeads = new ChainHeads();

  /** Works queued for the next group (transactGrouped), whether a flush is scheduled, and the groups running. */
  private queued: Queued[] = [];
  private flushScheduled = false;
  private groupsInFlight = 0;

  /** The scopes (organization and environment) of the groups running: each in one group at a time. */
  private readonly scopesRunning = new Set<string>();

  /**
   * transact(), with group commit: the works that arrive while their organization's group runs
   * (up to GROUP_MAX) run one after the other in ONE transaction, their entries, lines and outbox
   * rows written in one statement, and their events published in one go after the one COMMIT. If
   * anything in the group fails (a work throws, or COMMIT refuses), the group is rolled back and each
   * work runs again alone, so a failure is only ever its own. A work must therefore be safe to run
   * again after a rollback (as for retryOnceOnUnique), and must not depend on running in a
   * transaction of its own.
   *
   * Why one group per organization and environment at a time: the groups of one organization
   * serialize on its journal chain head (libs/ledger, locked from the chained write to COMMIT). A
   * second group of it started at once would only wait for that lock, holding a connection; held
   * back, its works gather into the next group, which starts as soon as the first one finishes.
   * (Started once the first one's entries were chained instead, so that its works overlap that
   * COMMIT, it was slower: create-bill 726 -> 689/s, mixed 1203 -> 1062/s, more CPU per request, in
   * one bench:compare run, organization of 6,000 invoices.)
   * Other organizations' works start their own groups meanwhile (at most GROUPS_IN_FLIGHT in all).
   * Measured (bench:compare create-bill, one organization): 716 vs 700 bills/s against two groups
   * of any organization in flight, 437 with four.
   */
  transactGrouped<T, A = never, R = never>(ctx: TrustedContext, work: (tx: Tx, batched?: R) => Promise<T>, batch?: { kind: GroupBatch<A, R>; arg: A }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queued.push({ ctx, work: work as Queued['work'], batch, resolve: resolve as (v: unknown) => void, reject });
      this.scheduleFlush();
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
      // The queued works, in order, of the scopes no running group holds (up to GROUP_MAX).
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
      if (group.length === 0) return; // every queued work's scope is running: flushed when one ends
      this.queued = waiting;
      for (const key of scopes) this.scopesRunning.add(key);
      this.groupsInFlight++;
      let released = false;
      // The group's organizations are free again once its transaction ended: its chain heads are
      // unlocked at COMMIT, so the next group of them need not wait for this one's publish.
      const release = () => {
        if (released) return;
        released = true;
        this.groupsInFlight--;
        for (const key of scopes) this.scopesRunning.delete(key);
        this.scheduleFlush();
      };
      void this.runGroup(group, release)
        .catch((e: unknown) => group.forEach((q) => q.reject(e)))
        .finally(release);
    }
  }

  /** Runs a group; calls `release` once its transaction ended, before its events are published. */
  private async runGroup(group: Queued[], release: () => void): Promise<void> {
    // Anything that kept the one-statement form from writing (nothing written then) sends the group
    // the usual way; counted by reason, so that a statement a later change broke shows (not only as
    // lost throughput).
    const once = await this.inOneStatement(group).catch((err: unknown): OneStatement => {
      this.log?.debug({ err, works: group.length }, 'one-statement group failed; writing it the usual way');
      return { fallback: 'error' };
    });
    if (once && 'fallback' in once) this.metrics?.oneStatementFallbacks.inc({ reason: once.fallback });
    else if (once) {
      this.metrics?.groupCommits.inc({ way: 'one_statement' });
      release();
      await this.outbox.publish(once.pending);
      group.forEach((q, i) => q.resolve(once.results[i]));
      return;
    }
    if (group.length === 1) {
      const [one] = group as [Queued];
      this.metrics?.groupCommits.inc({ way: 'alone' });
      return this.transactThen(one.ctx, one.work, release).then(one.resolve, one.reject);
    }
    let done: { results: unknown[]; pending: OutboxMessage[] };
    try {
      done = await this.together(group);
      this.metrics?.groupCommits.inc({ way: 'transaction' });
    } catch {
      // Rolled back: each runs again alone, and answers with its own outcome (released after them).
      this.metrics?.groupCommits.inc({ way: 'alone' }, group.length);
      await Promise.all(group.map((q) => this.transact(q.ctx, q.work).then(q.resolve, q.reject)));
      return;
    }
    release();
    await this.outbox.publish(done.pending);
    group.forEach((q, i) => q.resolve(done.results[i]));
  }

  /**
   * Runs the works one after the other in one transaction; their journal entries, the charts they
   * need, and every outbox row are written after the last work, set-based. Throws what the first
   * failing work (or COMMIT) threw; nothing is committed then.
   */
  private async together(works: Pick<Queued, 'ctx' | 'work' | 'batch'>[]): Promise<{ results: unknown[]; pending: OutboxMessage[] }> {
    const pending: OutboxMessage[] = [];
    const entries: EntryToWrite[] = [];
    const results = await this.orm.em
      .fork()
      .transactional(async (em) => {
        const sql = await transactionQuery(em);
        const lock = new BooksLockCheck(sql);
        const out: unknown[] = [];
        const batched = await runBatches({ sql, em, lock }, works);
        for (const [i, { ctx, work }] of works.entries()) out.push(await work(this.tx(ctx, em, sql, lock, entries, pending), batched[i]));
        await em.flush();
        const charts = new Map(entries.map(({ scope }) => [scopeKey(scope), scope]));
        for (const [key, scope] of charts) {
          if (!this.chartsCommitted.has(key)) await insertDefaultAccounts((text, params) => em.execute(text, params, 'run'), scope.organizationId, scope.environment);
        }
        // Chains the entries too (locks their chains' heads until COMMIT). The outbox rows go in the
        // same statement (their events carry the hashes), so that nothing runs between it and COMMIT.
        const outbox = this.outboxRows(pending);
        await insertJournalEntries((s, values) => sql(statement(s.name, s.sql), values), entries, { heads: this.chainHeads, also: outbox });
        if (entries.length === 0) await this.outbox.add(em, pending);
        return out;
      })
      .catch((e: unknown) => {
        // Rolled back: the heads this write predicted did not move (a stale one only costs a round trip).
        this.chainHeads.forget(entries.map(({ scope }) => scope));
        throw e;
      });
    for (const { scope } of entries) this.chartsCommitted.add(scopeKey(scope)); // committed: the chart exists from now on
    return { results, pending };
  }

  /**
   * The group as ONE statement that is its whole transaction, when its works' batch has a read
   * (GroupBatch.read): a read with no transaction and no lock, the works (in memory: their journal
   * entries and outbox rows), then one chained write (libs/ledger writeJournalEntriesGuarded) that
   * locks what was read, checks it is unchanged, and makes the batch's change, the entries and the
   * outbox rows, or nothing. Two round trips where the usual way makes four (BEGIN, the batch, the
   * write, COMMIT), in the section where an organization's groups run one at a time. Null when it
   * wrote nothing: a work alone (ONE_STATEMENT_MIN), a work that touched the database or threw
   * (the usual way runs it again and answers), a scope whose chart or chain head this process does
   * not know yet, or a guard that failed (a draft changed, the lock date moved, another writer moved
   * the head).
   */
  private async inOneStatement(works: readonly Queued[]): Promise<OneStatement> {
    const kind = works[0]?.batch?.kind;
    if (works.length < ONE_STATEMENT_MIN || !kind?.read || works.some((w) => w.batch?.kind !== kind)) return null;
    const scopes = works.map((w) => scopeOf(w.ctx));
    if (scopes.some((s) => !this.chartsCommitted.has(scopeKey(s)) || !this.chainHeads.get(s))) return null;
    return withQuery(this.orm, async (sql) => {
      const lock = new BooksLockCheck(noStatements);
      const read = await kind.read!(
        { sql, em: this.orm.em.fork(), lock },
        works.map((w, i) => ({ scope: scopes[i]!, arg: w.batch!.arg })),
      );
      if (!read) return { fallback: 'declined' };
      const entries: EntryToWrite[] = [];
      const pending: OutboxMessage[] = [];
      const results: unknown[] = [];
      try {
        for (const [i, w] of works.entries()) results.push(await w.work(this.tx(w.ctx, noEntityManager, noStatements, lock, entries, pending), read.results[i]));
      } catch {
        return { fallback: 'work' };
      }
      const outbox = this.outboxRows(pending);
      const hashes = await writeJournalEntriesGuarded((s, values) => sql(statement(s.name, s.sql), values), entries, { heads: this.chainHeads, also: outbox, guard: read.guard });
      return hashes ? { results, pending } : { fallback: 'guard' };
    });
  }

  /** The outbox rows of `pending`, written in the journal's statement (their events carry the entries' hashes). */
  private outboxRows(pending: OutboxMessage[]): AlsoInsert {
    return { name: 'outbox_insert', sql: OUTBOX_INSERT_SQL, values: (hashes) => this.outbox.rows(stampEntryHashes(pending, hashes)) };
  }

  /** The Tx of one work: its own tenancy, the group's transaction, entries and outbox rows. */
  private tx(ctx: TrustedContext, em: EntityManager, sql: Query, lock: BooksLockCheck, entries: EntryToWrite[], pending: OutboxMessage[]): Tx {
    const scope = scopeOf(ctx);
    return {
      em,
      scope,
      sql,
      assertOpen: (date, field) => lock.assertOpen(scope, date, field),
      post: (draft, source, entryId) =>
        // The lock date first (books-lock.ts: read FOR SHARE in this transaction).
        lock.assertOpen(scope, draft.entryDate).then(() => {
          // What reporting would refuse is a bug of the flow, never published (500, not 422).
          const misfiled = postingSourceProblem(this.service, source.type, draft.sourceType);
          if (misfiled) throw new Error(`${this.service} cannot post this entry: ${misfiled}`);
          // Checked now (a LedgerError fails this work); written with the transaction's other entries.
          const entry = { ...buildEntry(draft), id: entryId ?? randomUUID() };
          entries.push({ scope, entry });
          const event: PostingEvent = {
            id: randomUUID(),
            type: 'journal_entry.posted',
            organization_id: scope.organizationId,
            environment: scope.environment,
            occurred_at: new Date().toISOString(),
            entry: {
              id: entry.id,
              entry_date: entry.entryDate,
              source_type: entry.sourceType,
              source_id: entry.sourceId,
              memo: entry.memo ?? null,
              reverses_entry_id: entry.reversesEntryId ?? null,
              lines: entry.lines.map((l) => ({
                account_id: accountId(scope.organizationId, scope.environment, l.accountCode),
                account_code: l.accountCode,
                side: l.side,
                amount_cents: l.amountCents,
                customer_id: l.customerId ?? null,
                invoice_id: l.invoiceId ?? null,
                vendor_id: l.vendorId ?? null,
                bill_id: l.billId ?? null,
              })),
            },
            source,
          };
          pending.push({ id: event.id, subject: postingSubject(this.prefix, this.service), payload: event });
          return entry.id;
        }),
      emit: (type, data) => {
        // The bus refuses a subject the service's NATS user was not given (BUS_ROLES): fail here, not in the relay.
        if (!BUS_ROLES[this.service].emits.includes(type)) throw new Error(`${this.service} does not emit ${type} (BUS_ROLES in @acct/contracts)`);
        const id = randomUUID();
        const created_at = new Date().toISOString();
        if (isReferenceEventType(type)) {
          const payload = { id, type, created_at, organization_id: ctx.organizationId, environment: ctx.environment, data };
          pending.push({ id, subject: referenceSubject(this.prefix, type), payload });
          return;
        }
        pending.push({
          id,
          subject: outboundSubject(this.prefix, type),
          payload: {
            id,
            type,
            created_at,
            organization_id: ctx.organizationId,
            connected_app_id: ctx.connectedAppId,
            environment: ctx.environment,
            data,
          },
        });
      },
    };
  }
}

/** What a work meets when it touches the database in the one-statement form (Books.inOneStatement). */
class NotInOneStatement extends Error {
  constructor() {
    super('this work reads or writes on its own: it runs in a transaction');
  }
}
const noStatements: Query = () => Promise.reject(new NotInOneStatement());
const noEntityManager = new Proxy({} as EntityManager, {
  get() {
    throw new NotInOneStatement();
  },
});

/**
 * What Books.inOneStatement did: wrote the group (its works' results and events), tried and wrote
 * nothing (why: the group goes the usual way), or did not try (null: a work alone, a batch with no
 * read, a scope this process has not posted to yet).
 */
type OneStatement = { results: unknown[]; pending: OutboxMessage[] } | { fallback: 'guard' | 'declined' | 'work' | 'error' } | null;

/**
 * The fewest works a group needs for its one statement (Books.inOneStatement). A work alone goes the
 * usual way: Postgres plans the read and the guarded write afresh at most runs, which cost more than
 * the two round trips saved (bench:compare post-invoice at 1 client: Postgres CPU per post 1.77 ->
 * 2.74 ms, 173 -> 150 posts/s); a group shares that cost.
 */
export const ONE_STATEMENT_MIN = 2;

/** Most works one group commit takes (the rest go to the next group, started at once). */
export const GROUP_MAX = 32;

/** Most groups (transactGrouped) running at once, of different organizations: see transactGrouped. */
export const GROUPS_IN_FLIGHT = 4;

interface Queued {
  ctx: TrustedContext;
  work: (tx: Tx, batched?: unknown) => Promise<unknown>;
  batch?: { kind: GroupBatch<unknown, unknown>; arg: unknown };
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** Runs each kind of batch of a group's works once (GroupBatch); the result of each work, in order (undefined: none). */
async function runBatches(db: { sql: Query; em: EntityManager; lock: BooksLockCheck }, works: readonly Pick<Queued, 'ctx' | 'batch'>[]): Promise<unknown[]> {
  const out: unknown[] = new Array(works.length).fill(undefined);
  const kinds = new Map<GroupBatch<unknown, unknown>, number[]>();
  works.forEach((w, i) => {
    if (w.batch) kinds.set(w.batch.kind, [...(kinds.get(w.batch.kind) ?? []), i]);
  });
  for (const [kind, at] of kinds) {
    const results = await kind.run(
      db,
      at.map((i) => ({ scope: scopeOf(works[i]!.ctx), arg: works[i]!.batch!.arg })),
    );
    at.forEach((i, j) => (out[i] = results[j]));
  }
  return out;
}

/**
 * A draft the flow built is checked by the ledger; one it cannot post (an amount out of range, an
 * unknown account, debits ≠ credits) is the caller's input gone wrong, so it answers 422, not 500.
 */
export function refuseLedgerError(e: unknown): never {
  if (e instanceof LedgerError) {
    throw AppError.validation(`The journal entry could not be posted: ${e.message}.`, [{ field: '/', issue: e.code, message: e.message }]);
  }
  throw e;
}

/** SQLSTATE unique_violation. */
export const UNIQUE_VIOLATION = '23505';

/**
 * True when e is Postgres' unique violation of the named constraint or unique index (an external
 * id already used). Judged by SQLSTATE and constraint name (MikroORM copies both from the driver's
 * error), never by message text.
 */
export function isUniqueViolation(e: unknown, constraint: string): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { code, constraint: name } = e as { code?: unknown; constraint?: unknown };
  return code === UNIQUE_VIOLATION && name === constraint;
}

/**
 * Runs a transaction again once if it lost a race on the named unique constraint: the second run
 * sees the winner's committed row and answers from it (replay, conflict or a failed event).
 */
export async function retryOnceOnUnique<T>(constraint: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!isUniqueViolation(e, constraint)) throw e;
    return run();
  }
}

/**
 * Retry-safe create on an external id (API-DECISIONS §1): the first create answers 201; a repeat
 * with the same content answers 200 with the existing record (replayed); different content, 409.
 */
export async function createOnce<E, B>(opts: {
  constraint: string;
  create: () => Promise<RpcOk<B>>;
  existing: () => Promise<E | null>;
  same: (existing: E) => boolean;
  reply: (existing: E) => B;
  field: string;
  what: string;
}): Promise<RpcOk<B>> {
  try {
    return await opts.create();
  } catch (e) {
    if (!isUniqueViolation(e, opts.constraint)) throw e;
  }
  const existing = await opts.existing();
  if (!existing) throw new AppError('internal_error', `${opts.what} vanished after a duplicate key.`);
  if (!opts.same(existing)) {
    throw AppError.conflict(`${opts.field.slice(1)} was already used for a ${opts.what} with different content.`, [
      { field: opts.field, issue: 'already_used', message: `Send the same content to retry, or use a new ${opts.field.slice(1)}.` },
    ]);
  }
  return { ok: true, status: 200, replayed: true, body: opts.reply(existing) };
}

/** Compares the caller's content of two creates, ignoring key order. */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** The books of a wired posting service (its manifest entry says posts: true). */
export function booksOf(w: Pick<ServiceWiring, 'name' | 'orm' | 'outbox' | 'prefix'> & Partial<Pick<ServiceWiring, 'metrics' | 'log'>>): Books {
  if (!w.outbox) throw new Error(`${w.name} posts, but it has no outbox: set posts: true in its SERVICE_MANIFEST entry`);
  return new Books(w.orm, w.outbox, w.prefix, w.name, w.metrics, w.log);
}

/** What registers the handlers of one resource of a posting service on its books. */
export type BooksRegistrar = (server: RpcServer, books: Books) => void;

/** The register step of a posting service: its books, then each resource's handlers in turn. */
export function registerOnBooks(wiring: ServiceWiring, registrars: readonly BooksRegistrar[]): void {
  const books = booksOf(wiring);
  for (const register of registrars) register(wiring.server, books);
  registerChainVerification(wiring.server, wiring.orm, wiring.name);
}
