import { Migration } from '@mikro-orm/migrations';

/**
 * Covering indexes for the aging query: its range of open_days and of party_periods is read from the
 * index alone (an index-only scan once the pages are all-visible), not one heap page per row.
 */
export class Migration20261124000005AgingIndexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE INDEX open_days_covering ON open_days (organization_id, environment, account_code, entry_date, party_id, due_date) INCLUDE (open_cents);
      CREATE INDEX party_periods_covering ON party_periods (organization_id, environment, account_code, grain, period, party_id) INCLUDE (open_cents);
    `);
  }
}
