import { type MigrationDef, OUTBOX_DDL, ddlMigration } from '@acct/kit';
import { LEDGER_DDL } from '@acct/ledger';
import { BOOKS_LOCK_DDL } from './books-lock';

/**
 * The tables every posting service owns in its schema (ledger and outbox), one migration per frozen
 * DDL version, in version order (ledger before outbox within one): the order they shipped in. A
 * new version of either appends one entry here, and every posting service picks it up on its next
 * migrate; an entry that shipped is never edited, removed or moved.
 */
export const POSTING_MIGRATIONS: readonly MigrationDef[] = Object.freeze(
  [
    ...LEDGER_DDL.map((d) => ({ version: d.version, name: `Posting_Ledger_v${d.version}`, class: ddlMigration(d.sql) })),
    ...OUTBOX_DDL.map((d) => ({ version: d.version, name: `Posting_Outbox_v${d.version}`, class: ddlMigration(d.sql) })),
  ]
    .sort((a, b) => a.version - b.version)
    .map(({ name, class: c }) => ({ name, class: c }))
    // The books' lock date copy (books-lock.ts), after the ledger and outbox versions.
    .concat(BOOKS_LOCK_DDL.map((d) => ({ name: `Posting_BooksLock_v${d.version}`, class: ddlMigration(d.sql) }))),
);

/** A posting service's whole migration list: the shared tables first, then its own. */
export function withPostingMigrations(own: MigrationDef[]): MigrationDef[] {
  return [...POSTING_MIGRATIONS, ...own];
}
