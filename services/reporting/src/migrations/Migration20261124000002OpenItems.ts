import { Migration } from '@mikro-orm/migrations';
import { totalsTable } from '@acct/kit';

/**
 * open_items: the open amount per party and due date over every day (open_days summed over
 * entry_date), only where it is not zero: the projection adds each entry's amounts with a
 * commutative `+=` and deletes a key that comes to zero. An aging report as of the organization's
 * latest entry date or later (the usual "as of today") reads these totals, which hold only what is
 * still open, instead of every day of open_days.
 */
export class Migration20261124000002OpenItems extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      ${totalsTable('open_items', ['account_code text NOT NULL', 'party_id uuid NOT NULL', 'due_date date NOT NULL'])`
        open_cents bigint NOT NULL
      `}
      INSERT INTO open_items (organization_id, environment, account_code, party_id, due_date, open_cents)
      SELECT organization_id, environment, account_code, party_id, due_date, sum(open_cents)
        FROM open_days GROUP BY 1, 2, 3, 4, 5 HAVING sum(open_cents) <> 0;
    `);
  }
}
