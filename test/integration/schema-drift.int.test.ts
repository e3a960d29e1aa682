import { migrate, ormOpener, schemaDrift, schemaOf } from '@acct/kit';
import { freshDatabase } from '@acct/testing';
import { MANIFEST_NAMES, serviceOf } from '../support/services';

/**
 * Every service of the manifest: its entities and its migrated schema agree (no column an entity
 * maps is missing or typed otherwise, no column of an entity's table is unmapped).
 */
describe.each(MANIFEST_NAMES)('the %s schema', (name) => {
  it('migrates on an empty database and matches its entities (no drift)', async () => {
    const def = serviceOf(name);
    const db = await freshDatabase(`acct_drift_${schemaOf(name)}`);
    const orm = await ormOpener(def)(db.url, 2);
    try {
      const applied = await migrate(orm);
      expect(applied.length).toBe(def.migrations.length);
      expect(await schemaDrift(orm, schemaOf(name))).toEqual([]);
    } finally {
      await orm.close(true);
      await db.drop();
    }
  });
});
