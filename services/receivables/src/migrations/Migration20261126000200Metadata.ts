import { Migration } from '@mikro-orm/migrations';
import { addMetadataColumns } from '@acct/kit';

/**
 * API-DECISIONS §11: `metadata` (the caller's key-value pairs, never used for accounting) on every
 * receivables record, and customers get `updated_at` for PATCH: reporting keeps the newest copy of a
 * customer by it (customer.updated), so it must grow with every change.
 */
export class Migration20261126000200Metadata extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      ${addMetadataColumns(['customers', 'invoices', 'estimates', 'payments', 'processor_payouts'])}
      ALTER TABLE customers ADD COLUMN updated_at timestamptz;
      UPDATE customers SET updated_at = created_at;
      ALTER TABLE customers ALTER COLUMN updated_at SET NOT NULL;
    `);
  }
}
