import { CONSUMER_MIGRATIONS, type MigrationDef, RPC_IDEMPOTENCY_MIGRATION, versionsOf } from '@acct/kit';
import { withPostingMigrations } from '@acct/posting';
import { Migration20261123000001Payables } from './Migration20261123000001Payables';
import { Migration20261126000201Metadata } from './Migration20261126000201Metadata';

/**
 * The ledger and outbox (shared, versioned), then the payables tables, then the consumer's
 * bookkeeping (consumed_events, parked_events: shared, versioned) of the books_lock.updated feed.
 */
export const migrations: MigrationDef[] = withPostingMigrations([
  ...versionsOf(Migration20261123000001Payables, Migration20261126000201Metadata),
  ...CONSUMER_MIGRATIONS,
  RPC_IDEMPOTENCY_MIGRATION,
]);
