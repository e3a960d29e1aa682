import { Migration } from '@mikro-orm/migrations';

/** API-DECISIONS §11: `metadata` (the caller's key-value pairs, never used for accounting) on every payables record. */
export class Migration20261126000201Metadata extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      ALTER TABLE vendors ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object');
      ALTER TABLE bills ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object');
      ALTER TABLE vendor_payments ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object');
    `);
  }
}
