import { Migration } from '@mikro-orm/migrations';

/**
 * The last four characters of each key, so the dashboard can show a key as its first 12 and last 4
 * (API-DECISIONS §13) without holding it. Keys made before have none (null): shown by their first 12.
 */
export class Migration20261128000004KeyLast4 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      ALTER TABLE api_keys ADD COLUMN key_last4 text;
      CREATE INDEX api_keys_connected_app ON api_keys (connected_app_id, environment, created_at);
    `);
  }
}
