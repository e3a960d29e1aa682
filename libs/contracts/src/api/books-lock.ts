import { type Static, Type } from '@sinclair/typebox';
import type { BooksLockCopyService } from '../events';
import { operations } from '../operations';
import { routesOf } from '../routes';
import { Nullable, date, dateTime, obj, singleEnvelope, uuid } from '../schemas/common';

/**
 * The books' lock date (API-DECISIONS §12): no posting write dated on or before it. Receivables
 * owns the value and its history; every posting service keeps a copy it checks inside each posting
 * transaction (libs/posting books-lock.ts), fed by the books_lock.updated reference event, and a PUT
 * answers only once every copy has it (the owner asks each, BOOKS_LOCK_COPY_OPERATIONS).
 */

/** How many of the newest changes a reply lists. */
export const BOOKS_LOCK_CHANGES_LISTED = 100;

const change = obj({
  id: uuid,
  changed_at: dateTime,
  api_key_id: Type.String({ description: 'The API key that made the change.' }),
  connected_app_id: uuid,
  previous_lock_date: Nullable(date),
  lock_date: Nullable(date),
});

const booksLock = obj({
  lock_date: Nullable({ ...date, description: `${date.description} Writes dated on or before it are refused (409 period_locked); null: no lock.` }),
  changes: Type.Array(change, { description: `The recorded changes, newest first (the ${BOOKS_LOCK_CHANGES_LISTED} newest).` }),
});
export type BooksLockDto = Static<typeof booksLock>;
export const booksLockBody = obj({ lock_date: Nullable(date) });
export const booksLockResponse = singleEnvelope('books_lock', booksLock);

/** The version (and its lock date) the owner waits for another posting service's copy to hold; the reply is the copy's. */
export const booksLockApplyBody = obj({ version: Type.Integer({ minimum: 0 }), lock_date: Nullable(date) });
const booksLockApplyReply = obj({ version: Type.Integer({ minimum: 0 }), lock_date: Nullable(date) });

export const booksLockOperations = operations('receivables', {
  'settings.books_lock.get': { reply: booksLockResponse },
  'settings.books_lock.put': { body: booksLockBody, reply: booksLockResponse },
});

/** Asked by receivables only: payables' copy of the lock date. */
export const booksLockCopyOperations = operations('payables', {
  'books_lock.apply': { body: booksLockApplyBody, reply: booksLockApplyReply, internal: true },
});

/**
 * The operation through which the owner waits for each copy (BOOKS_LOCK_COPY_SERVICES) to hold a
 * new version (applied by the copy's books_lock.updated feed) before PUT answers. A Record over the
 * copies: a new posting service does not compile until it serves one and names it here; the owner
 * calls every entry and may call each (BUS_ROLES).
 */
export const BOOKS_LOCK_COPY_OPERATIONS: Readonly<Record<BooksLockCopyService, keyof typeof booksLockCopyOperations>> = Object.freeze({ payables: 'books_lock.apply' });

const route = routesOf(booksLockOperations, { tag: 'Settings', module: 'embedded_settings' });

export const booksLockRoutes = [
  route('settings.books_lock.get', {
    operationId: 'getBooksLock',
    method: 'GET',
    path: '/api/v1/settings/books-lock',
    summary: 'Get the lock date of the books of this organization and environment (null when none) and its recorded changes, newest first.',
    statuses: { 200: 'The lock date and its changes.' },
  }),
  route('settings.books_lock.put', {
    operationId: 'putBooksLock',
    method: 'PUT',
    path: '/api/v1/settings/books-lock',
    summary: 'Set, move (earlier or later) or clear (null) the lock date; each change is recorded with the key and connected app that made it.',
    description:
      'From the moment this answers, every write whose accounting date is on or before lock_date is refused with 409 period_locked and stores nothing: ' +
      'invoice post (issue date), payment (received date), processor payout (payout date), bill post (issue date), vendor payment post (payment date), ' +
      'reversals and voids (their date). An inbound event (POST /events, a payment processor webhook) that would post into the locked period is stored ' +
      'with status failed and a detail with issue period_locked. Setting the lock date it already has records nothing and is safe to retry; ' +
      '503 service_unavailable means a posting service could not be told yet: retry the same request.',
    statuses: { 200: 'The lock date now in force and its changes.' },
  }),
];
