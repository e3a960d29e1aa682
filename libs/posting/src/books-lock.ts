import { AppError, type Environment } from '@acct/contracts';
import { type Query, type Scope, scopeKey, statement } from '@acct/kit';

/**
 * The books' lock date (API-DECISIONS §12), as every posting service enforces it.
 *
 * Each posting service keeps a copy of the lock date of every organization and environment in its
 * own `books_lock` table (receivables' row is the authoritative one; it also keeps the history). The
 * check runs in the posting transaction itself, before its first entry is written:
 *
 * - It reads the copy `FOR SHARE`. A change of the copy (applyBooksLock: an UPDATE) therefore waits
 *   for every posting transaction that read the old value to commit or roll back, and every posting
 *   that reads after the change commits sees the new value. A scope with no row yet gets one (lock
 *   date null) first, so there is always a row to lock: an insert of the copy by a change waits on
 *   (or is waited on by) that insert through the primary key.
 * - A copy is fed one way: the owner's books_lock.updated reference event, through its outbox
 *   (books-lock-feed.ts: a durable consumer per copy), applied by applyBooksLock, so a copy never
 *   goes back to an older version.
 * - The owner answers PUT /settings/books-lock only after its own row changed and every other posting
 *   service's copy holds the same version: books_lock.apply waits until the feed applied it (a
 *   read-your-writes barrier; it writes nothing). Once PUT answered, no posting dated on or
 *   before the lock date can commit anywhere: any such posting in flight either committed before
 *   the copy changed, or reads the new value and is refused with 409 period_locked, and the refusal
 *   rolls its whole transaction back (document, entries, outbox rows). A copy that is not there or
 *   behind (PUT answered 503) catches up from the event by itself, without a retry of the PUT.
 *
 * No extra round trip per posting: one indexed read on the posting's own connection, once per scope
 * and transaction (the share lock holds to the end of the transaction, so the value cannot change).
 */
export const BOOKS_LOCK_DDL: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
  CREATE TABLE books_lock (
    organization_id uuid NOT NULL,
    environment text NOT NULL CHECK (environment IN ('test', 'live')),
    lock_date date,
    version bigint NOT NULL DEFAULT 0 CHECK (version >= 0),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (organization_id, environment)
  );
`,
  },
];

const readLock = statement('books_lock_read', `SELECT lock_date::text AS lock_date FROM books_lock WHERE organization_id = ? AND environment = ? FOR SHARE`);
const ensureRow = statement('books_lock_ensure', `INSERT INTO books_lock (organization_id, environment) VALUES (?, ?) ON CONFLICT DO NOTHING`);

/** The lock date of one scope, read FOR SHARE in the transaction of `sql` (a row is made if none). */
export async function lockDateForShare(sql: Query, scope: Scope): Promise<string | null> {
  const params = [scope.organizationId, scope.environment];
  let rows = await sql<{ lock_date: string | null }>(readLock, params);
  if (rows.length === 0) {
    await sql(ensureRow, params);
    rows = await sql<{ lock_date: string | null }>(readLock, params);
  }
  return rows[0]?.lock_date ?? null;
}

/** 409 period_locked: `date` (of the write, at `field`) is on or before the lock date. */
export function periodLocked(date: string, lockDate: string, field = '/'): AppError {
  return new AppError('period_locked', `The books are locked up to ${lockDate}: nothing dated ${date} can be posted.`, [
    { field, issue: 'period_locked', message: `The accounting date ${date} is on or before the lock date ${lockDate} (GET /api/v1/settings/books-lock).` },
  ]);
}

/**
 * The lock check of one posting transaction: reads each scope's lock date once (FOR SHARE), then
 * refuses any date on or before it. Dates are YYYY-MM-DD, so string order is date order.
 */
export class BooksLockCheck {
  private readonly read = new Map<string, Promise<string | null>>();

  constructor(private readonly sql: Query) {}

  lockDate(scope: Scope): Promise<string | null> {
    const key = scopeKey(scope);
    let p = this.read.get(key);
    if (!p) {
      p = lockDateForShare(this.sql, scope);
      this.read.set(key, p);
    }
    return p;
  }

  /**
   * The scope's lock date as a statement of this transaction read it FOR SHARE (scopeLocks): no
   * read of its own then. A scope read already keeps its value.
   */
  prime(scope: Scope, lockDate: string | null): void {
    const key = scopeKey(scope);
    if (this.read.has(key)) return;
    this.read.set(key, Promise.resolve(lockDate));
  }

  /** Throws 409 period_locked when `date` is on or before the scope's lock date. */
  async assertOpen(scope: Scope, date: string, field?: string): Promise<void> {
    const lock = await this.lockDate(scope);
    if (lock !== null && date <= lock) throw periodLocked(date, lock, field);
  }
}

const applyStmt = statement(
  'books_lock_apply',
  `INSERT INTO books_lock (organization_id, environment, lock_date, version, updated_at) VALUES (?, ?, ?::date, ?, now())
   ON CONFLICT (organization_id, environment) DO UPDATE SET lock_date = EXCLUDED.lock_date, version = EXCLUDED.version, updated_at = now()
   WHERE books_lock.version < EXCLUDED.version
   RETURNING version`,
);
const currentStmt = statement('books_lock_current', `SELECT lock_date::text AS lock_date, version::int AS version FROM books_lock WHERE organization_id = ? AND environment = ?`);

/**
 * Applies a lock date of the owner (its books_lock.updated event, books-lock-feed.ts) to this service's
 * copy, only when `version` is newer than the copy's (idempotent; an older or repeated one changes nothing). Its UPDATE waits for the
 * postings holding the row FOR SHARE. Answers the copy as it is afterwards.
 */
export async function applyBooksLock(
  sql: Query,
  scope: { organizationId: string; environment: Environment },
  version: number,
  lockDate: string | null,
): Promise<{ version: number; lock_date: string | null }> {
  await sql(applyStmt, [scope.organizationId, scope.environment, lockDate, version]);
  const [row] = await sql<{ lock_date: string | null; version: number }>(currentStmt, [scope.organizationId, scope.environment]);
  return { version: row?.version ?? 0, lock_date: row?.lock_date ?? null };
}

const forUpdateStmt = statement(
  'books_lock_for_update',
  `SELECT lock_date::text AS lock_date, version::int AS version FROM books_lock WHERE organization_id = ? AND environment = ? FOR UPDATE`,
);
const setStmt = statement(
  'books_lock_set',
  `UPDATE books_lock SET lock_date = ?::date, version = version + 1, updated_at = now() WHERE organization_id = ? AND environment = ? RETURNING version::int AS version`,
);

/** The lock date and its version as one service's copy holds them (the owner's: the value in force). */
export interface BooksLockState {
  version: number;
  lock_date: string | null;
}

/**
 * The owner's change of the value in force, in the transaction of `sql`: the row is locked FOR
 * UPDATE (waiting for the postings that hold it FOR SHARE), then set with the next version. The
 * same lock date again changes nothing (changed: false), so a retried PUT records no second change.
 */
export async function setBooksLockRow(sql: Query, scope: Scope, lockDate: string | null): Promise<BooksLockState & { previous: string | null; changed: boolean }> {
  const params = [scope.organizationId, scope.environment];
  await sql(ensureRow, params);
  const [cur] = await sql<BooksLockState>(forUpdateStmt, params);
  const previous = cur?.lock_date ?? null;
  if (cur && previous === lockDate) return { ...cur, previous, changed: false };
  const [row] = await sql<{ version: number }>(setStmt, [lockDate, ...params]);
  return { version: row?.version ?? 0, lock_date: lockDate, previous, changed: true };
}

/** The copy of one scope, without locking (a read): version 0 and null when never set. */
export async function readBooksLock(sql: Query, scope: Scope): Promise<BooksLockState> {
  const [row] = await sql<BooksLockState>(currentStmt, [scope.organizationId, scope.environment]);
  return { version: row?.version ?? 0, lock_date: row?.lock_date ?? null };
}

/**
 * The lock rows of a group's scopes read FOR SHARE inside the statement a GroupBatch makes anyway
 * (its first), instead of in a statement of their own: one round trip less per group commit, in
 * the section where an organization's groups run one at a time. `cte` (a WITH item named lk, two
 * `?`: the scopes' organizations and environments, as `params` gives them) goes first in the
 * statement; `returning(alias)` adds the lock of each returned row's scope (alias: the table
 * written, with organization_id and environment); `prime` hands what came back to the
 * transaction's BooksLockCheck. A scope with no row yet, or with no returned row, is read as
 * before (lockDateForShare makes its row).
 */
export const scopeLocks = {
  cte: `lk AS MATERIALIZED (
    SELECT b.organization_id, b.environment, b.lock_date::text AS lock_date FROM books_lock b
     WHERE (b.organization_id, b.environment) IN (SELECT * FROM unnest(?::uuid[], ?::text[])) FOR SHARE OF b
  )`,
  returning: (alias: string) =>
    `(SELECT lk.lock_date FROM lk WHERE lk.organization_id = ${alias}.organization_id AND lk.environment = ${alias}.environment) AS books_lock_date,
     EXISTS (SELECT 1 FROM lk WHERE lk.organization_id = ${alias}.organization_id AND lk.environment = ${alias}.environment) AS books_lock_row`,
  params(scopes: readonly Scope[]): [string[], string[]] {
    const unique = [...new Map(scopes.map((s) => [scopeKey(s), s])).values()];
    return [unique.map((s) => s.organizationId), unique.map((s) => s.environment)];
  },
  prime(lock: BooksLockCheck, rows: readonly Record<string, unknown>[]): void {
    for (const r of rows) {
      if (r.books_lock_row === true)
        lock.prime({ organizationId: String(r.organization_id), environment: r.environment as Environment }, (r.books_lock_date as string | null) ?? null);
    }
  },
};
