import { Migration } from '@mikro-orm/migrations';
import { totalsTable } from '@acct/kit';

/**
 * Per-document and per-vendor daily totals, kept by the projection in the transaction of each entry
 * (commutative +=), so A/R, A/P and the 1099 summary scan days, not lines. A missing document,
 * customer or vendor id is stored as the nil uuid (key columns are NOT NULL) and read back as NULL.
 *
 * document_days: debit and credit totals of the A/R (1100) and A/P (2000) lines per document
 * (invoice_id on A/R, bill_id on A/P), party (customer_id, vendor_id) and day.
 * vendor_payment_days: A/P debits of `vendor_payment` entries that reverse nothing and that no
 * entry reverses, per vendor and day (a reversal takes its payment out, whichever arrives first).
 */
export class Migration20261123000003DocumentDays extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      ${totalsTable('document_days', ['account_code text NOT NULL', 'entry_date date NOT NULL', 'document_id uuid NOT NULL', 'party_id uuid NOT NULL'])`
        debit_cents bigint NOT NULL DEFAULT 0,
        credit_cents bigint NOT NULL DEFAULT 0
      `}
      INSERT INTO document_days (organization_id, environment, account_code, entry_date, document_id, party_id, debit_cents, credit_cents)
      SELECT organization_id, environment, account_code, entry_date,
             coalesce(CASE WHEN account_code = '1100' THEN invoice_id ELSE bill_id END, '00000000-0000-0000-0000-000000000000'),
             coalesce(CASE WHEN account_code = '1100' THEN customer_id ELSE vendor_id END, '00000000-0000-0000-0000-000000000000'),
             coalesce(sum(amount_cents) FILTER (WHERE side = 'debit'), 0), coalesce(sum(amount_cents) FILTER (WHERE side = 'credit'), 0)
        FROM journal_lines WHERE account_code IN ('1100', '2000') GROUP BY 1, 2, 3, 4, 5, 6;

      ${totalsTable('vendor_payment_days', ['entry_date date NOT NULL', 'vendor_id uuid NOT NULL'])`
        paid_cents bigint NOT NULL DEFAULT 0
      `}
      INSERT INTO vendor_payment_days (organization_id, environment, entry_date, vendor_id, paid_cents)
      SELECT e.organization_id, e.environment, e.entry_date, coalesce(l.vendor_id, '00000000-0000-0000-0000-000000000000'), sum(l.amount_cents)
        FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id AND l.account_code = '2000' AND l.side = 'debit'
       WHERE e.source_type = 'vendor_payment' AND e.reverses_entry_id IS NULL
         AND NOT EXISTS (SELECT 1 FROM journal_entries r WHERE r.reverses_entry_id = e.id)
       GROUP BY 1, 2, 3, 4;
    `);
  }
}
