import type { MigrationDef } from '@acct/kit';
import { Migration20261122000001Customers } from './Migration20261122000001Customers';

export const migrations: MigrationDef[] = [{ name: 'Migration20261122000001Customers', class: Migration20261122000001Customers }];
