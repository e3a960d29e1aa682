import { Migration } from '@mikro-orm/migrations';

/**
 * Void invoices (API-DECISIONS §11): status void, the void's accounting date and its reversing
 * entry. A void invoice never carries payments: the last guard against a void and a payment that
 * both think they won.
 */
export class Migration20261126000300InvoiceVoid extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      ALTER TABLE invoices DROP CONSTRAINT invoices_status_check;
      ALTER TABLE invoices ADD CONSTRAINT invoices_status_check CHECK (status IN ('draft', 'open', 'partially_paid', 'paid', 'void'));
      ALTER TABLE invoices
        ADD COLUMN void_date date,
        ADD COLUMN voided_at timestamptz,
        ADD COLUMN void_entry_id uuid,
        ADD CONSTRAINT invoices_void_unpaid CHECK (status <> 'void' OR paid_cents = 0),
        ADD CONSTRAINT invoices_void_date CHECK (void_date >= issue_date);
    `);
  }
}
