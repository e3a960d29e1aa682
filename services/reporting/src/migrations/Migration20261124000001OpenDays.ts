import { Migration } from '@mikro-orm/migrations';
import { totalsTable } from '@acct/kit';

/**
 * Open amounts per party, due date and day, for A/R (1100, debit − credit) and A/P (2000, credit −
 * debit), kept by the projection in the transaction of each entry (commutative +=). An aging report
 * sums one range of it grouped by party and bucket, without grouping per document or joining the
 * documents: a document's due date comes with every posting that touches it (the source carries it).
 * A missing party is the nil uuid, a missing due date 'infinity' (always current).
 * Replaces document_days and documents, which only served the aging reports.
 */
export class Migration20261124000001OpenDays extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      ${totalsTable('open_days', ['account_code text NOT NULL', 'entry_date date NOT NULL', 'party_id uuid NOT NULL', 'due_date date NOT NULL'])`
        open_cents bigint NOT NULL DEFAULT 0
      `}
      INSERT INTO open_days (organization_id, environment, account_code, entry_date, party_id, due_date, open_cents)
      SELECT l.organization_id, l.environment, l.account_code, l.entry_date,
             coalesce(CASE WHEN l.account_code = '1100' THEN l.customer_id ELSE l.vendor_id END, d.party_id, '00000000-0000-0000-0000-000000000000'),
             coalesce(d.due_date, 'infinity'::date),
             sum(CASE WHEN (l.side = 'debit') = (l.account_code = '1100') THEN l.amount_cents ELSE -l.amount_cents END)
        FROM journal_lines l
        LEFT JOIN documents d ON d.id = CASE WHEN l.account_code = '1100' THEN l.invoice_id ELSE l.bill_id END
       WHERE l.account_code IN ('1100', '2000')
       GROUP BY 1, 2, 3, 4, 5, 6;
      DROP TABLE document_days;
      DROP TABLE documents;
    `);
  }
}
