import { type MigrationDef, RPC_IDEMPOTENCY_MIGRATION } from '@acct/kit';
import { Migration20261124000010Documents } from './Migration20261124000010Documents';
import { Migration20261125000001Shares } from './Migration20261125000001Shares';
import { Migration20261201000001DiscardedObjects } from './Migration20261201000001DiscardedObjects';

/** The documents tables, one class per version (frozen once merged: test/deploy/migrations.lock.json). */
export const migrations: MigrationDef[] = [
  { name: 'Migration20261124000010Documents', class: Migration20261124000010Documents },
  { name: 'Migration20261125000001Shares', class: Migration20261125000001Shares },
  { name: 'Migration20261201000001DiscardedObjects', class: Migration20261201000001DiscardedObjects },
  RPC_IDEMPOTENCY_MIGRATION,
];
