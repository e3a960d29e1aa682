import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000001Customers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE customers (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        external_customer_id text NOT NULL,
        name text NOT NULL,
        email text,
        status text NOT NULL DEFAULT 'active',
        created_at timestamptz NOT NULL,
        CONSTRAINT customers_external_id UNIQUE (organization_id, environment, external_customer_id)
      );
      CREATE INDEX customers_list ON customers (organization_id, environment, created_at DESC, id DESC);
    `);
  }
}
