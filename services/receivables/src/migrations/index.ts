import { type MigrationDef, RPC_IDEMPOTENCY_MIGRATION } from '@acct/kit';
import { withPostingMigrations } from '@acct/posting';
import { Migration20261122000001Customers } from './Migration20261122000001Customers';
import { Migration20261122000002Receivables } from './Migration20261122000002Receivables';
import { Migration20261124000003PaymentProcessors } from './Migration20261124000003PaymentProcessors';
import { Migration20261126000200Metadata } from './Migration20261126000200Metadata';
import { Migration20261126000300InvoiceVoid } from './Migration20261126000300InvoiceVoid';
import { Migration20261126000400BooksLockChanges } from './Migration20261126000400BooksLockChanges';

/** The ledger and outbox (shared, versioned), then the receivables tables. */
export const migrations: MigrationDef[] = withPostingMigrations([
  { name: 'Migration20261122000001Customers', class: Migration20261122000001Customers },
  { name: 'Migration20261122000002Receivables', class: Migration20261122000002Receivables },
  { name: 'Migration20261124000003PaymentProcessors', class: Migration20261124000003PaymentProcessors },
  { name: 'Migration20261126000200Metadata', class: Migration20261126000200Metadata },
  { name: 'Migration20261126000300InvoiceVoid', class: Migration20261126000300InvoiceVoid },
  { name: 'Migration20261126000400BooksLockChanges', class: Migration20261126000400BooksLockChanges },
  RPC_IDEMPOTENCY_MIGRATION,
]);
