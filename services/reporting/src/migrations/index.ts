import { CONSUMER_MIGRATIONS, type MigrationDef, RPC_IDEMPOTENCY_MIGRATION, versionsOf } from '@acct/kit';
import { Migration20261123000001Reporting } from './Migration20261123000001Reporting';
import { Migration20261123000002AccountDays } from './Migration20261123000002AccountDays';
import { Migration20261123000003DocumentDays } from './Migration20261123000003DocumentDays';
import { Migration20261124000001OpenDays } from './Migration20261124000001OpenDays';
import { Migration20261124000002OpenItems } from './Migration20261124000002OpenItems';
import { Migration20261124000003VendorPaymentYears } from './Migration20261124000003VendorPaymentYears';
import { Migration20261124000004PartyPeriods } from './Migration20261124000004PartyPeriods';
import { Migration20261124000005AgingIndexes } from './Migration20261124000005AgingIndexes';
import { Migration20261128000001Statements } from './Migration20261128000001Statements';

/** The consumer's bookkeeping (shared, versioned), then the projection. */
export const migrations: MigrationDef[] = [
  ...CONSUMER_MIGRATIONS,
  ...versionsOf(
    Migration20261123000001Reporting,
    Migration20261123000002AccountDays,
    Migration20261123000003DocumentDays,
    Migration20261124000001OpenDays,
    Migration20261124000002OpenItems,
    Migration20261124000003VendorPaymentYears,
    Migration20261124000004PartyPeriods,
    Migration20261124000005AgingIndexes,
    Migration20261128000001Statements,
  ),
  RPC_IDEMPOTENCY_MIGRATION,
];

/** The tables a rebuild empties (consumed_events of the consumer too). */
export const PROJECTION_TABLES = ['journal_lines', 'journal_entries', 'parties', 'account_days', 'open_days', 'party_periods', 'open_leads', 'vendor_payment_years'] as const;
