import { randomUUID } from 'node:crypto';
import {
  AppError,
  BUS_ROLES,
  type EmittedEventType,
  type EventMap,
  type PostingEvent,
  type PostingSource,
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
  type Orm,
  OUTBOX_INSERT_SQL,
  type Outbox,
  type OutboxMessage,
  type Query,
  type Scope,
  scopeKey,
  scopeOf,
  statement,
  transactionQuery,
} from '@acct/kit';
import { BooksLockCheck } from './books-lock';
import { stampEntryHashes } from './chain';
import {
  type AlsoWrite,
  ChainHeads,
  type EntryToWrite,
  type JournalEntryDraft,
  LedgerError,
  buildEntry,
  chainEntryOf,
  insertDefaultAccounts,
  insertJournalEntries,
  postingEventEntry,
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
  /**
   * Queues one row of a set-based write (LaterWrite) that the unit of work makes in its last
   * statement, with the journal entries and the outbox rows: no round trip of its own. The works
   * of the unit do not see it (a flow that reads the row again must know what it queued).
   */
  later(write: LaterWrite, row: readonly unknown[]): void;
}

/**
 * A write of rows a flow computed (e.g. the marking of drafts posted), made by the unit of work in
 * its last statement (libs/ledger insertJournalEntries' `also`), every queued row at once: `sql` is
 * an `UPDATE … FROM unnest(?::<type>[], …) AS k (…) WHERE …` (`where`), or an `INSERT … SELECT … FROM
 * unnest(…)` with no WHERE clause, one `?` array per value of a row. Its ONE statement form.
 */
export type LaterWrite = Omit<AlsoWrite, 'values'>;

/** What the works of a unit queued: its journal entries, outbox messages and later writes' rows. */
interface Queued {
  entries: EntryToWrite[];
  pending: OutboxMessage[];
  later: Map<LaterWrite, (readonly unknown[])[]>;
}

/**
 * The first statement of a kind of work (e.g. the locking of the drafts to post), made ONCE for
 * every work of that kind in a unit of work, set-based, before the works run: `run` gets each
 * work's scope and argument in queue order and answers one result for each, or undefined for a
 * work it left to do its own. Each work then gets its result (`work(tx, batched)`). So a group
 * of N posts makes one round trip where it made N,
 * and a group of one makes the same statement with one item: a kind of write has ONE statement
 * form. The works then behave as if every batched statement had run first, in queue order: one of
 * the serial orders of concurrent requests.
 */
export interface GroupBatch<A, R> {
  /** `lock`: the transaction's lock check, which the statement may feed (scopeLocks). */
  run(db: { sql: Query; em: EntityManager; lock: BooksLockCheck }, items: readonly { scope: Scope; arg: A }[]): Promise<readonly (R | undefined)[]>;
}

/** One work of a unit of work: its request's tenancy, the work, and its batch (GroupBatch), if any. */
export interface Member {
  ctx: TrustedContext;
  work: (tx: Tx, batched?: unknown) => Promise<unknown>;
  batch?: { kind: GroupBatch<unknown, unknown>; arg: unknown };
}

/** What a committed unit of work answers: each work's result, in order, and the events to publish. */
export interface Committed {
  results: unknown[];
  pending: OutboxMessage[];
}

/**
 * THE write of a posting service (libs/posting Books): one Postgres transaction for one or more
 * works. Each kind of batch runs once (GroupBatch), then the works one after the other; their
 * journal entries, the charts they need, every outbox row and the rows of their later writes
 * (LaterWrite) are written after the last work, set-based, in one chained statement (libs/ledger
 * insertJournalEntries); then COMMIT. Throws what the first failing work (or COMMIT) threw;
 * nothing is committed then.
 */
export class UnitOfWork {
  /** Scopes whose chart of accounts a committed transaction created (accounts are never deleted). */
  private readonly chartsCommitted = new Set<string>();
  /** What this process's last writes left as each chain's head (checked in the write: libs/ledger ChainHeads). */
  private readonly chainHeads = new ChainHeads();

  constructor(
    private readonly orm: Orm,
    private readonly outbox: Outbox,
    private readonly prefix: string,
    /** The owning service: its posting events go to `<prefix>.events.posting.<service>`. */
    private readonly service: ServiceName,
  ) {}

  async commit(members: readonly Member[]): Promise<Committed> {
    const queued: Queued = { entries: [], pending: [], later: new Map() };
    const { entries, pending } = queued;
    const results = await this.orm.em
      .fork()
      .transactional(async (em) => {
        const sql = await transactionQuery(em);
        const lock = new BooksLockCheck(sql);
        const out: unknown[] = [];
        const batched = await runBatches({ sql, em, lock }, members);
        for (const [i, { ctx, work }] of members.entries()) out.push(await work(this.tx(ctx, em, sql, lock, queued), batched[i]));
        await em.flush();
        await this.writeLast(em, sql, queued);
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
   * The charts the entries need, then ONE statement: the entries chained (their chains' heads locked
   * until COMMIT), the outbox rows (their events carry the hashes) and the later writes' rows, so
   * that nothing runs between it and COMMIT. None when there is nothing to write.
   */
  private async writeLast(em: EntityManager, sql: Query, { entries, pending, later }: Queued): Promise<void> {
    const charts = new Map(entries.map(({ scope }) => [scopeKey(scope), scope]));
    for (const [key, scope] of charts) {
      if (!this.chartsCommitted.has(key)) await insertDefaultAccounts((text, params) => em.execute(text, params, 'run'), scope.organizationId, scope.environment);
    }
    const also: AlsoWrite[] = [];
    if (pending.length) also.push({ name: 'outbox_insert', sql: OUTBOX_INSERT_SQL, values: (hashes) => this.outbox.rows(stampEntryHashes(pending, hashes)) });
    for (const [write, rows] of later) also.push({ ...write, values: () => columnsOf(rows) });
    await insertJournalEntries((s, values) => sql(statement(s.name, s.sql), values), entries, { heads: this.chainHeads, also });
  }

  /** The Tx of one work: its own tenancy, the unit's transaction, entries and outbox rows. */
  private tx(ctx: TrustedContext, em: EntityManager, sql: Query, lock: BooksLockCheck, { entries, pending, later }: Queued): Tx {
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
          const event = postingEvent(scope, entry, source);
          pending.push({ id: event.id, subject: postingSubject(this.prefix, this.service), payload: event });
          return entry.id;
        }),
      emit: (type, data) => pending.push(this.emitted(ctx, type, data)),
      later: (write, row) => {
        const rows = later.get(write);
        if (rows) rows.push(row);
        else later.set(write, [row]);
      },
    };
  }

  /** The outbox message of an event a work emits (Tx.emit). */
  private emitted<K extends EmittedEventType>(ctx: TrustedContext, type: K, data: EventMap[K]): OutboxMessage {
    // The bus refuses a subject the service's NATS user was not given (BUS_ROLES): fail here, not in the relay.
    if (!BUS_ROLES[this.service].emits.includes(type)) throw new Error(`${this.service} does not emit ${type} (BUS_ROLES in @acct/contracts)`);
    const id = randomUUID();
    const created_at = new Date().toISOString();
    if (isReferenceEventType(type)) {
      const payload = { id, type, created_at, organization_id: ctx.organizationId, environment: ctx.environment, data };
      return { id, subject: referenceSubject(this.prefix, type), payload };
    }
    const payload = { id, type, created_at, organization_id: ctx.organizationId, connected_app_id: ctx.connectedAppId, environment: ctx.environment, data };
    return { id, subject: outboundSubject(this.prefix, type), payload };
  }
}

/** The journal_entry.posted event of an entry a work posts. */
function postingEvent(scope: Scope, entry: ReturnType<typeof buildEntry> & { id: string }, source: PostingSource): PostingEvent {
  return {
    id: randomUUID(),
    type: 'journal_entry.posted',
    organization_id: scope.organizationId,
    environment: scope.environment,
    occurred_at: new Date().toISOString(),
    entry: postingEventEntry(chainEntryOf(scope, entry.id, entry)),
    source,
  };
}

/** Rows as columns: one array per value of a row (a LaterWrite's `unnest` arrays). */
function columnsOf(rows: readonly (readonly unknown[])[]): unknown[][] {
  return rows[0]!.map((_, j) => rows.map((r) => r[j]));
}

/** Runs each kind of batch of a unit's works once (GroupBatch); the result of each work, in order (undefined: none). */
async function runBatches(db: { sql: Query; em: EntityManager; lock: BooksLockCheck }, works: readonly Member[]): Promise<unknown[]> {
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
