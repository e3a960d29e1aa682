import { Migration } from '@mikro-orm/migrations';
import { totalsTable } from '@acct/kit';

/**
 * Aging as a bounded read for any as_of (replaces open_items, which held every open party and due
 * date: 125k rows when every invoice stays partly open):
 *
 * party_periods: A/R (1100) and A/P (2000) open amounts per party and period of the entry date, at
 * three grains (0 day, 1 month, 2 year; period = its first day). A party's balance as of a date is
 * the years before its year, the months of its year before its month and the days of its month up
 * to it: at most years + 11 + 31 rows per party.
 *
 * open_leads: per account, the most days any A/R or A/P line's due date is after its entry date
 * (max, commutative). Every line due on or after as_of − 90 is dated on or after as_of − 90 − lead,
 * so the buckets current … 61-90 read only open_days of those days; over 90 is the balance less them.
 * Lines due 'infinity' (no known document) are read apart (partial index).
 */
export class Migration20261124000004PartyPeriods extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      ${totalsTable('party_periods', ['account_code text NOT NULL', 'grain smallint NOT NULL CHECK (grain IN (0, 1, 2))', 'period date NOT NULL', 'party_id uuid NOT NULL'])`
        open_cents bigint NOT NULL DEFAULT 0
      `}
      INSERT INTO party_periods (organization_id, environment, account_code, grain, period, party_id, open_cents)
      SELECT o.organization_id, o.environment, o.account_code, g.grain,
             CASE g.grain WHEN 0 THEN o.entry_date WHEN 1 THEN date_trunc('month', o.entry_date)::date ELSE date_trunc('year', o.entry_date)::date END,
             o.party_id, sum(o.open_cents)
        FROM open_days o CROSS JOIN (VALUES (0), (1), (2)) g(grain)
       GROUP BY 1, 2, 3, 4, 5, 6;

      ${totalsTable('open_leads', ['account_code text NOT NULL'])`
        lead_days integer NOT NULL
      `}
      INSERT INTO open_leads (organization_id, environment, account_code, lead_days)
      SELECT organization_id, environment, account_code, greatest(0, max(due_date - entry_date))
        FROM open_days WHERE due_date <> 'infinity' GROUP BY 1, 2, 3;

      CREATE INDEX open_days_no_due ON open_days (organization_id, environment, account_code, entry_date) WHERE due_date = 'infinity';
      DROP TABLE open_items;
    `);
  }
}
