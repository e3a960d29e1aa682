import { Migration } from '@mikro-orm/migrations';
import { addMetadataColumns } from '@acct/kit';

/** API-DECISIONS §11: `metadata` (the caller's key-value pairs, never used for accounting) on every payables record. */
export class Migration20261126000201Metadata extends Migration {
  override async up(): Promise<void> {
    this.addSql(addMetadataColumns(['vendors', 'bills', 'vendor_payments']));
  }
}
