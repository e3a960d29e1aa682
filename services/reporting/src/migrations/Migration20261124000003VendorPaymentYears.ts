import { Migration } from '@mikro-orm/migrations';
import { totalsTable } from '@acct/kit';

/**
 * vendor_payment_years: the A/P debits of vendor payments that reverse nothing and that no entry
 * reverses, per vendor and calendar year of the payment date (the 1099 summary's only grouping),
 * kept like vendor_payment_days was (a payment added when it arrives unreversed, taken out by its
 * first reversal, whichever order). The 1099 summary reads one row per vendor paid in the year
 * instead of every vendor-day. Replaces vendor_payment_days, which only the 1099 summary read.
 */
export class Migration20261124000003VendorPaymentYears extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      ${totalsTable('vendor_payment_years', ['year integer NOT NULL', 'vendor_id uuid NOT NULL'])`
        paid_cents bigint NOT NULL DEFAULT 0
      `}
      INSERT INTO vendor_payment_years (organization_id, environment, year, vendor_id, paid_cents)
      SELECT organization_id, environment, extract(year FROM entry_date)::int, vendor_id, sum(paid_cents)
        FROM vendor_payment_days GROUP BY 1, 2, 3, 4;
      DROP TABLE vendor_payment_days;
    `);
  }
}
