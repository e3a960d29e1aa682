import { type Logger, openOrm, type Orm } from '@acct/kit';
import { entities } from './entities';
import { migrations } from './migrations';

export const RECEIVABLES_SCHEMA = 'receivables';

export function openReceivablesOrm(url: string, poolMax?: number, log?: Logger): Promise<Orm> {
  return openOrm({ url, schema: RECEIVABLES_SCHEMA, entities, migrations, poolMax, log });
}
