import { migrate, schemaDrift } from '@acct/kit';
import { freshDatabase } from '@acct/testing';
import { RECEIVABLES_SCHEMA, openReceivablesOrm } from './db';

describe('receivables schema', () => {
  it('the entities and the migrated schema agree (no drift)', async () => {
    const db = await freshDatabase('acct_recv_drift');
    const orm = await openReceivablesOrm(db.url, 2);
    try {
      await migrate(orm);
      expect(await schemaDrift(orm, RECEIVABLES_SCHEMA)).toEqual([]);
    } finally {
      await orm.close(true);
      await db.drop();
    }
  });
});
