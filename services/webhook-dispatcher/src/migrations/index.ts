import { CONSUMER_MIGRATIONS, type MigrationDef, RPC_IDEMPOTENCY_MIGRATION, versionsOf } from '@acct/kit';
import { Migration20261123000010Webhooks } from './Migration20261123000010Webhooks';
import { Migration20261126000400WebhookEndpointManagement } from './Migration20261126000400WebhookEndpointManagement';
import { Migration20261126000500WebhookSubscriptionsVersion } from './Migration20261126000500WebhookSubscriptionsVersion';

/** The consumer's consumed_events table, then the webhook tables, then endpoint management (metadata, rotation, manual retry), then the subscriptions' version. */
export const migrations: MigrationDef[] = [
  ...CONSUMER_MIGRATIONS,
  ...versionsOf(Migration20261123000010Webhooks, Migration20261126000400WebhookEndpointManagement, Migration20261126000500WebhookSubscriptionsVersion),
  RPC_IDEMPOTENCY_MIGRATION,
];
