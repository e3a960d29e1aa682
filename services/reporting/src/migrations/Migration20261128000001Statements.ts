import { Migration } from '@mikro-orm/migrations';

/**
 * The financial statements (API-DECISIONS §14): fiscal_year_settings, the month each organization
 * and environment's fiscal year starts (a setting reporting owns: a rebuild of the projection keeps
 * it), and the general ledger's index: one account's lines in (entry date, entry id, line number)
 * order with their amounts, so a page from a cursor is one index range at any depth; and the A/R and
 * A/P lines by document, through which the cash basis finds a settled invoice's or bill's own entries.
 */
export class Migration20261128000001Statements extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE fiscal_year_settings (
        organization_id uuid NOT NULL,
        environment text NOT NULL,
        start_month smallint NOT NULL CHECK (start_month BETWEEN 1 AND 12),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, environment)
      );
      CREATE INDEX journal_lines_ledger ON journal_lines (organization_id, environment, account_code, entry_date, entry_id, line_no) INCLUDE (side, amount_cents);
      CREATE INDEX journal_lines_document ON journal_lines (organization_id, environment, account_code, (coalesce(invoice_id, bill_id))) WHERE coalesce(invoice_id, bill_id) IS NOT NULL;
    `);
  }
}
