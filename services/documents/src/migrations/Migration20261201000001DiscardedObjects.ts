import { Migration } from '@mikro-orm/migrations';

const SQL = `
  CREATE TABLE discarded_objects (
    storage_key text PRIMARY KEY,
    discarded_at timestamptz NOT NULL
  );
  CREATE INDEX discarded_objects_age ON discarded_objects (discarded_at);
`;

/**
 * Objects of discarded uploads still to delete from the store: the reservation's row goes at once,
 * its key waits here while the store is down or frozen, and the sweeper deletes the object later.
 */
export class Migration20261201000001DiscardedObjects extends Migration {
  override async up(): Promise<void> {
    this.addSql(SQL);
  }
}
