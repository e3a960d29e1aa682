import { CONSUMER_MIGRATIONS, type MigrationDef } from '@acct/kit';
import { Migration20261123000010Webhooks } from './Migration20261123000010Webhooks';

/** The consumer's consumed_events table, then the webhook tables. */
export const migrations: MigrationDef[] = [...CONSUMER_MIGRATIONS, { name: 'Migration20261123000010Webhooks', class: Migration20261123000010Webhooks }];
