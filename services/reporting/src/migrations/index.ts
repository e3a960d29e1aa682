import { CONSUMER_MIGRATIONS, type MigrationDef, RPC_IDEMPOTENCY_MIGRATION } from '@acct/kit';
import { Migration20261123000001Reporting } from './Migration20261123000001Reporting';
import { Migration20261123000002AccountDays } from './Migration20261123000002AccountDays';
import { Migration20261123000003DocumentDays } from './Migration20261123000003DocumentDays';
import { Migration20261124000001OpenDays } from './Migration20261124000001OpenDays';
import { Migration20261124000002OpenItems } from './Migration20261124000002OpenItems';
import { Migration20261124000003VendorPaymentYears } from './Migration20261124000003VendorPaymentYears';
import { Migration20261124000004PartyPeriods } from './Migration20261124000004PartyPeriods';
import { Migration20261124000005AgingIndexes } from './Migration20261124000005AgingIndexes';

/** The consumer's bookkeeping (shared, versioned), then the projection. */
export const migrations: MigrationDef[] = [
  ...CONSUMER_MIGRATIONS,
  { name: 'Migration20261123000001Reporting', class: Migration20261123000001Reporting },
  { name: 'Migration20261123000002AccountDays', class: Migration20261123000002AccountDays },
  { name: 'Migration20261123000003DocumentDays', class: Migration20261123000003DocumentDays },
  { name: 'Migration20261124000001OpenDays', class: Migration20261124000001OpenDays },
  { name: 'Migration20261124000002OpenItems', class: Migration20261124000002OpenItems },
  { name: 'Migration20261124000003VendorPaymentYears', class: Migration20261124000003VendorPaymentYears },
  { name: 'Migration20261124000004PartyPeriods', class: Migration20261124000004PartyPeriods },
  { name: 'Migration20261124000005AgingIndexes', class: Migration20261124000005AgingIndexes },
  RPC_IDEMPOTENCY_MIGRATION,
];

/** The tables a rebuild empties (consumed_events of the consumer too). */
export const PROJECTION_TABLES = ['journal_lines', 'journal_entries', 'parties', 'account_days', 'open_days', 'party_periods', 'open_leads', 'vendor_payment_years'] as const;
