import type { MigrationDef } from '@acct/kit';
import { Migration20261122000001Init } from './Migration20261122000001Init';
import { Migration20261124000001RateBuckets } from './Migration20261124000001RateBuckets';

export const migrations: MigrationDef[] = [
  { name: 'Migration20261122000001Init', class: Migration20261122000001Init },
  { name: 'Migration20261124000001RateBuckets', class: Migration20261124000001RateBuckets },
];
