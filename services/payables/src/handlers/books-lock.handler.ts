import { setTimeout as sleep } from 'node:timers/promises';
import { type RpcServer, scopeOf, withQuery } from '@acct/kit';
import { type Books, readBooksLock } from '@acct/posting';

/**
 * How long books_lock.apply waits for payables' copy to reach the version asked for: under the
 * owner's timeout for the call (BOOKS_LOCK_COPY_TIMEOUT_MS in receivables, 5 s), so that a copy
 * still behind answers its version (the owner then answers 503) rather than time the call out.
 */
const COPY_WAIT_MS = 4_000;
/** Between two reads of the copy while waiting (a lock-date change is rare; the feed applies it within ms). */
const COPY_POLL_MS = 5;

/**
 * books_lock.apply: receivables (the owner of the lock date) asks, before its PUT answers, that
 * payables' copy hold the new version. The copy has one writer, the books_lock.updated feed
 * (libs/posting books-lock-feed.ts, through the owner's outbox); this only waits until the feed
 * applied that version (or COPY_WAIT_MS passed) and answers the copy's state. The feed's update
 * waits for payables' postings in flight that read the copy (libs/posting books-lock.ts), so once
 * the version is read here no posting of payables commits with the older lock date. An older
 * version asked late answers at once with the copy as it is.
 */
export function registerBooksLockApplyHandler(server: RpcServer, books: Books): void {
  server.handle('books_lock.apply', async (req) => {
    const scope = scopeOf(req.ctx);
    const deadline = Date.now() + COPY_WAIT_MS;
    for (;;) {
      const state = await withQuery(books.orm, (q) => readBooksLock(q, scope));
      if (state.version >= req.body.version || Date.now() >= deadline) return { ok: true, status: 200, body: state };
      await sleep(COPY_POLL_MS);
    }
  });
}
