import { AppError, single } from '@acct/contracts';
import type { RpcClient, RpcServer } from '@acct/kit';
import type { Books, BooksLockState } from '@acct/posting';
import { booksLockDto, changeBooksLock } from '../flows/books-lock';

/**
 * The books' lock date (API-DECISIONS §12). Receivables owns it; PUT answers only once every other
 * posting service (payables) applied the same version to its copy (books_lock.apply, idempotent by
 * version), so from its answer on no posting service commits a posting dated on or before it (see
 * libs/posting books-lock.ts). A service that cannot be reached gives 503: the change stays
 * recorded, and the same PUT again pushes it again without recording a second change.
 */
export function registerBooksLockHandlers(server: RpcServer, books: Books, rpc: Pick<RpcClient, 'call'>): void {
  server.handle('settings.books_lock.get', async (req) => {
    return { ok: true, status: 200, body: single('books_lock', await booksLockDto(books.orm, books.db(req.ctx))) };
  });

  server.handle('settings.books_lock.put', async (req) => {
    const state: BooksLockState = await books.transact(req.ctx, (tx) => changeBooksLock(tx, req.ctx, req.body.lock_date));
    const pushed = await rpc.call('books_lock.apply', { ctx: req.ctx, params: {}, query: {}, body: state });
    if (!pushed.ok) {
      throw new AppError('service_unavailable', `The lock date is recorded but the payables service could not apply it yet (${pushed.error.message}). Retry the same request.`);
    }
    if (pushed.body.version < state.version) {
      throw new AppError('service_unavailable', 'The payables service has not applied the new lock date yet. Retry the same request.');
    }
    return { ok: true, status: 200, body: single('books_lock', await booksLockDto(books.orm, books.db(req.ctx))) };
  });
}
