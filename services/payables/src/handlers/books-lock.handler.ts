import { type RpcServer, scopeOf, withQuery } from '@acct/kit';
import { type Books, applyBooksLock } from '@acct/posting';

/**
 * books_lock.apply: receivables (the owner of the lock date) pushes a new version to payables' copy
 * before its PUT answers. Applied only when newer, so a repeat or a late older push changes nothing;
 * the update waits for payables' postings in flight that read the copy (libs/posting books-lock.ts).
 * The same versions also reach the copy through the books_lock.updated event (books-lock-feed.ts).
 */
export function registerBooksLockApplyHandler(server: RpcServer, books: Books): void {
  server.handle('books_lock.apply', async (req) => {
    const state = await withQuery(books.orm, (q) => applyBooksLock(q, scopeOf(req.ctx), req.body.version, req.body.lock_date));
    return { ok: true, status: 200, body: state };
  });
}
