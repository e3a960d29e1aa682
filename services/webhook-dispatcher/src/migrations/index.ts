import { CONSUMER_MIGRATIONS, type MigrationDef } from '@acct/kit';
import { Migration20261123000010Webhooks } from './Migration20261123000010Webhooks';
import { Migration20261126000400WebhookEndpointManagement } from './Migration20261126000400WebhookEndpointManagement';

/** The consumer's consumed_events table, then the webhook tables, then endpoint management (metadata, rotation, manual retry). */
export const migrations: MigrationDef[] = [
  ...CONSUMER_MIGRATIONS,
  { name: 'Migration20261123000010Webhooks', class: Migration20261123000010Webhooks },
  { name: 'Migration20261126000400WebhookEndpointManagement', class: Migration20261126000400WebhookEndpointManagement },
];
