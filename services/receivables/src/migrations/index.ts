import type { MigrationDef } from '@acct/kit';
import { Migration20261122000001Customers } from './Migration20261122000001Customers';
import { Migration20261122000002Receivables } from './Migration20261122000002Receivables';

export const migrations: MigrationDef[] = [
  { name: 'Migration20261122000001Customers', class: Migration20261122000001Customers },
  { name: 'Migration20261122000002Receivables', class: Migration20261122000002Receivables },
];
