import { AppError, BOOKS_LOCK_COPY_OPERATIONS, type BooksLockCopyService, single } from '@acct/contracts';
import type { RpcClient, RpcServer } from '@acct/kit';
import type { Books, BooksLockState } from '@acct/posting';
import { booksLockDto, changeBooksLock } from '../flows/books-lock';

/**
 * The books' lock date (API-DECISIONS §12). Receivables owns it (BOOKS_LOCK_OWNER); every other
 * posting service (BOOKS_LOCK_COPY_SERVICES: payables) keeps a copy, fed one way, applied only
 * when newer by version (libs/posting books-lock.ts applyBooksLock):
 *
 * - the books_lock.updated reference event, emitted through the outbox in the transaction of the
 *   change and consumed by each copy's durable consumer (libs/posting books-lock-feed.ts): the copy
 *   catches up by itself after any outage, with no retry of the PUT;
 * - PUT answers only once every copy holds the version: it asks each (BOOKS_LOCK_COPY_OPERATIONS,
 *   all at once), which waits until its feed applied it, so from its answer on no posting service
 *   commits a posting dated on or before the lock date. A copy that cannot be asked or is still
 *   behind gives 503: the change stays recorded (its event reaches the copy later), and the same
 *   PUT again asks again without recording a second change.
 */
export function registerBooksLockHandlers(server: RpcServer, books: Books, rpc: Pick<RpcClient, 'call'>): void {
  server.handle('settings.books_lock.get', async (req) => {
    return { ok: true, status: 200, body: single('books_lock', await booksLockDto(books.orm, books.db(req.ctx))) };
  });

  server.handle('settings.books_lock.put', async (req) => {
    const state: BooksLockState = await books.transact(req.ctx, (tx) => changeBooksLock(tx, req.ctx, req.body.lock_date));
    const targets = Object.entries(BOOKS_LOCK_COPY_OPERATIONS) as [BooksLockCopyService, (typeof BOOKS_LOCK_COPY_OPERATIONS)[BooksLockCopyService]][];
    const behind = await Promise.all(
      targets.map(async ([service, op]): Promise<string | undefined> => {
        const copy = await rpc.call(op, { ctx: req.ctx, params: {}, query: {}, body: state });
        if (!copy.ok) return `the ${service} service could not apply it yet (${copy.error.message})`;
        if (copy.body.version < state.version) return `the ${service} service has not applied it yet`;
        return undefined;
      }),
    );
    const problems = behind.filter((p) => p !== undefined);
    if (problems.length > 0) throw new AppError('service_unavailable', `The lock date is recorded but ${problems.join('; ')}. Retry the same request.`);
    return { ok: true, status: 200, body: single('books_lock', await booksLockDto(books.orm, books.db(req.ctx))) };
  });
}
