import { randomUUID } from 'node:crypto';
import { BOOKS_LOCK_CHANGES_LISTED, type BooksLockDto, type TrustedContext } from '@acct/contracts';
import { type BooksLockState, type Db, type Tx, readBooksLock, setBooksLockRow } from '@acct/posting';
import { type Orm, withQuery } from '@acct/kit';
import { insertBooksLockChange, listBooksLockChanges } from '../queries';

/**
 * PUT /settings/books-lock, receivables' part (it owns the lock date): sets its own row, the value
 * in force, records the change (who, when, old and new date) and emits books_lock.updated for the
 * copies, all in one transaction. The same date again records nothing (a retried PUT).
 */
export async function changeBooksLock(tx: Tx, ctx: TrustedContext, lockDate: string | null): Promise<BooksLockState> {
  const set = await setBooksLockRow(tx.sql, tx.scope, lockDate);
  if (set.changed) {
    await insertBooksLockChange(tx, {
      id: randomUUID(),
      version: set.version,
      previous_lock_date: set.previous,
      lock_date: set.lock_date,
      api_key_id: ctx.apiKeyId,
      connected_app_id: ctx.connectedAppId,
      changed_at: new Date(),
    });
    tx.emit('books_lock.updated', { version: set.version, lock_date: set.lock_date });
  }
  return { version: set.version, lock_date: set.lock_date };
}

/** The lock date in force and its newest changes, newest first. */
export async function booksLockDto(orm: Orm, db: Db): Promise<BooksLockDto> {
  const state = await withQuery(orm, (q) => readBooksLock(q, db.scope));
  const changes = await listBooksLockChanges(db, BOOKS_LOCK_CHANGES_LISTED);
  return {
    lock_date: state.lock_date,
    changes: changes.map((c) => ({
      id: c.id,
      changed_at: new Date(c.changed_at).toISOString(),
      api_key_id: c.api_key_id,
      connected_app_id: c.connected_app_id,
      previous_lock_date: c.previous_lock_date,
      lock_date: c.lock_date,
    })),
  };
}
