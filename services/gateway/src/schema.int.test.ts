import { migrate, schemaDrift } from '@acct/kit';
import { freshDatabase } from '@acct/testing';
import { GATEWAY_SCHEMA, openGatewayOrm } from './db';

describe('gateway schema', () => {
  it('the entities and the migrated schema agree (no drift)', async () => {
    const db = await freshDatabase('acct_gw_drift');
    const orm = await openGatewayOrm(db.url, 2);
    try {
      await migrate(orm);
      expect(await schemaDrift(orm, GATEWAY_SCHEMA)).toEqual([]);
    } finally {
      await orm.close(true);
      await db.drop();
    }
  });
});
