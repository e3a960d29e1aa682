import type { MigrationDef } from '@acct/kit';
import { Migration20261122000001Init } from './Migration20261122000001Init';

export const migrations: MigrationDef[] = [{ name: 'Migration20261122000001Init', class: Migration20261122000001Init }];
