import type { EntitySchema } from '@mikro-orm/core';
import { type MigrationDef, type Orm, migrate, openOrm } from '@acct/kit';
import { freshDatabase } from './base';

export interface TestOrm {
  orm: Orm;
  /** Closes the ORM and drops its database. */
  stop: () => Promise<void>;
}

/**
 * MikroORM on a brand-new database (named after `prefix`) for one entity, its schema made by one
 * migration, with a pool of two; stop() closes it and drops the database.
 */
export async function migratedOrm(prefix: string, schema: string, entity: EntitySchema, migration: MigrationDef): Promise<TestOrm> {
  const db = await freshDatabase(prefix);
  const orm = await openOrm({ url: db.url, schema, entities: [entity], migrations: [migration], poolMax: 2 });
  await migrate(orm);
  return {
    orm,
    stop: async () => {
      await orm.close(true);
      await db.drop();
    },
  };
}
