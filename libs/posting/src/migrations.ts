import { type MigrationDef, OUTBOX_DDL, ddlMigration } from '@acct/kit';
import { LEDGER_DDL } from '@acct/ledger';
import { BOOKS_LOCK_DDL } from './books-lock';

/** The last ledger version that shipped before the books' lock table (BOOKS_LOCK_DDL v1). */
const LEDGER_BEFORE_BOOKS_LOCK = 3;

/**
 * The tables every posting service owns in its schema (ledger and outbox), one migration per frozen
 * DDL version, in version order (ledger before outbox within one): the order they shipped in. A
 * new version of either appends one entry here, and every posting service picks it up on its next
 * migrate; an entry that shipped is never edited, removed or moved.
 */
export const POSTING_MIGRATIONS: readonly MigrationDef[] = Object.freeze(
  [
    ...LEDGER_DDL.filter((d) => d.version <= LEDGER_BEFORE_BOOKS_LOCK).map((d) => ({ version: d.version, name: `Posting_Ledger_v${d.version}`, class: ddlMigration(d.sql) })),
    ...OUTBOX_DDL.map((d) => ({ version: d.version, name: `Posting_Outbox_v${d.version}`, class: ddlMigration(d.sql) })),
  ]
    .sort((a, b) => a.version - b.version)
    .map(({ name, class: c }) => ({ name, class: c }))
    // The books' lock date copy (books-lock.ts), after the ledger and outbox versions of its time.
    .concat(BOOKS_LOCK_DDL.map((d) => ({ name: `Posting_BooksLock_v${d.version}`, class: ddlMigration(d.sql) })))
    // Ledger versions that came after it, in order.
    .concat(LEDGER_DDL.filter((d) => d.version > LEDGER_BEFORE_BOOKS_LOCK).map((d) => ({ name: `Posting_Ledger_v${d.version}`, class: ddlMigration(d.sql) }))),
);

/** A posting service's whole migration list: the shared tables first, then its own. */
export function withPostingMigrations(own: MigrationDef[]): MigrationDef[] {
  return [...POSTING_MIGRATIONS, ...own];
}
