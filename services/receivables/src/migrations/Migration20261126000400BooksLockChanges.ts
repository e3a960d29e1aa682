import { Migration } from '@mikro-orm/migrations';

/**
 * The recorded changes of the books' lock date (API-DECISIONS §12). Receivables owns the lock date:
 * its books_lock row (libs/posting) is the value in force, this table its history.
 */
export class Migration20261126000400BooksLockChanges extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE books_lock_changes (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        version bigint NOT NULL,
        previous_lock_date date,
        lock_date date,
        api_key_id text NOT NULL,
        connected_app_id uuid NOT NULL,
        changed_at timestamptz NOT NULL,
        CONSTRAINT books_lock_changes_version UNIQUE (organization_id, environment, version)
      );
    `);
  }
}
