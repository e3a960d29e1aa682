import { migrate, schemaDrift } from '@acct/kit';
import { freshDatabase } from '@acct/testing';
import { PAYABLES_SCHEMA, openPayablesOrm } from './db';

describe('payables schema', () => {
  it('the entities and the migrated schema agree (no drift)', async () => {
    const db = await freshDatabase('acct_pay_drift');
    const orm = await openPayablesOrm(db.url, 2);
    try {
      await migrate(orm);
      expect(await schemaDrift(orm, PAYABLES_SCHEMA)).toEqual([]);
    } finally {
      await orm.close(true);
      await db.drop();
    }
  });
});
