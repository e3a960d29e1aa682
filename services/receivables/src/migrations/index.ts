import { type MigrationDef, RPC_IDEMPOTENCY_MIGRATION, versionsOf } from '@acct/kit';
import { withPostingMigrations } from '@acct/posting';
import { Migration20261122000001Customers } from './Migration20261122000001Customers';
import { Migration20261122000002Receivables } from './Migration20261122000002Receivables';
import { Migration20261124000003PaymentProcessors } from './Migration20261124000003PaymentProcessors';
import { Migration20261126000200Metadata } from './Migration20261126000200Metadata';
import { Migration20261126000300InvoiceVoid } from './Migration20261126000300InvoiceVoid';
import { Migration20261126000400BooksLockChanges } from './Migration20261126000400BooksLockChanges';

/** The ledger and outbox (shared, versioned), then the receivables tables. */
export const migrations: MigrationDef[] = withPostingMigrations([
  ...versionsOf(
    Migration20261122000001Customers,
    Migration20261122000002Receivables,
    Migration20261124000003PaymentProcessors,
    Migration20261126000200Metadata,
    Migration20261126000300InvoiceVoid,
    Migration20261126000400BooksLockChanges,
  ),
  RPC_IDEMPOTENCY_MIGRATION,
]);
