import { Migration } from '@mikro-orm/migrations';

/**
 * Rate-limit buckets shared by every gateway replica (shared-buckets.ts). UNLOGGED: a Postgres crash
 * empties it, which only refills every bucket once.
 */
export class Migration20261124000001RateBuckets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE UNLOGGED TABLE rate_buckets (
        bucket text NOT NULL,
        key text NOT NULL,
        tokens double precision NOT NULL,
        at timestamptz NOT NULL,
        PRIMARY KEY (bucket, key)
      );
    `);
  }
}
