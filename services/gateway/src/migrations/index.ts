import { type MigrationDef, versionsOf } from '@acct/kit';
import { Migration20261122000001Init } from './Migration20261122000001Init';
import { Migration20261124000001RateBuckets } from './Migration20261124000001RateBuckets';
import { Migration20261128000001Dashboard } from './Migration20261128000001Dashboard';
import { Migration20261128000004KeyLast4 } from './Migration20261128000004KeyLast4';

export const migrations: MigrationDef[] = versionsOf(
  Migration20261122000001Init,
  Migration20261124000001RateBuckets,
  Migration20261128000001Dashboard,
  Migration20261128000004KeyLast4,
);
