import { type Orm, migrate, openOrm } from '@acct/kit';
import { freshDatabase } from './base';

export interface TestOrm {
  orm: Orm;
  /** Closes the ORM and drops its database. */
  stop: () => Promise<void>;
}

/** MikroORM on a brand-new database (named after `prefix`), migrated; stop() closes and drops it. */
export async function migratedOrm(prefix: string, opts: Omit<Parameters<typeof openOrm>[0], 'url'>): Promise<TestOrm> {
  const db = await freshDatabase(prefix);
  const orm = await openOrm({ ...opts, url: db.url });
  await migrate(orm);
  return {
    orm,
    stop: async () => {
      await orm.close(true);
      await db.drop();
    },
  };
}
