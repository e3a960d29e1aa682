import { type MigrationDef, RPC_IDEMPOTENCY_MIGRATION, versionsOf } from '@acct/kit';
import { Migration20261124000010Documents } from './Migration20261124000010Documents';
import { Migration20261125000001Shares } from './Migration20261125000001Shares';
import { Migration20261201000001DiscardedObjects } from './Migration20261201000001DiscardedObjects';

/** The documents tables, one class per version (frozen once merged: test/deploy/migrations.lock.json). */
export const migrations: MigrationDef[] = [
  ...versionsOf(Migration20261124000010Documents, Migration20261125000001Shares, Migration20261201000001DiscardedObjects),
  RPC_IDEMPOTENCY_MIGRATION,
];
