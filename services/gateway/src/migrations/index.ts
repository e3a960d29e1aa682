import { type MigrationDef, OUTBOX_DDL, ddlMigration, versionsOf } from '@acct/kit';
import { Migration20261122000001Init } from './Migration20261122000001Init';
import { Migration20261124000001RateBuckets } from './Migration20261124000001RateBuckets';
import { Migration20261128000001Dashboard } from './Migration20261128000001Dashboard';
import { Migration20261128000004KeyLast4 } from './Migration20261128000004KeyLast4';

/**
 * The gateway's outbox (libs/kit outbox.ts: events of its own records, api_key.revoked), one
 * migration per frozen DDL version of the kit, as the posting services run them (Posting_Outbox_v*).
 */
const OUTBOX_MIGRATIONS: MigrationDef[] = OUTBOX_DDL.map((d) => ({ name: `Gateway_Outbox_v${d.version}`, class: ddlMigration(d.sql) }));

export const migrations: MigrationDef[] = [
  ...versionsOf(Migration20261122000001Init, Migration20261124000001RateBuckets, Migration20261128000001Dashboard, Migration20261128000004KeyLast4),
  ...OUTBOX_MIGRATIONS,
];
