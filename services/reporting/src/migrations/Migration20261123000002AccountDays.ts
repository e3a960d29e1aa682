import { Migration } from '@mikro-orm/migrations';
import { totalsTable } from '@acct/kit';

/**
 * Debit and credit totals per account and day, kept by the projection in the transaction of each
 * entry (commutative +=): balances, the trial balance and the summary scan days, not lines.
 */
export class Migration20261123000002AccountDays extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      ${totalsTable('account_days', ['account_code text NOT NULL', 'entry_date date NOT NULL'])`
        debit_cents bigint NOT NULL DEFAULT 0,
        credit_cents bigint NOT NULL DEFAULT 0
      `}
      INSERT INTO account_days (organization_id, environment, account_code, entry_date, debit_cents, credit_cents)
      SELECT organization_id, environment, account_code, entry_date,
             coalesce(sum(amount_cents) FILTER (WHERE side = 'debit'), 0), coalesce(sum(amount_cents) FILTER (WHERE side = 'credit'), 0)
        FROM journal_lines GROUP BY 1, 2, 3, 4;
    `);
  }
}
