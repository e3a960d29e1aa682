import { Migration } from '@mikro-orm/migrations';
import { scopedTable } from '@acct/kit';

export class Migration20261122000001Customers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      ${scopedTable('customers', 'external_customer_id')`
        name text NOT NULL,
        email text,
        status text NOT NULL DEFAULT 'active',
        created_at timestamptz NOT NULL
      `}
    `);
  }
}
