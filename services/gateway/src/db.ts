import { type Logger, openOrm, type Orm } from '@acct/kit';
import { entities } from './entities';
import { migrations } from './migrations';

export const GATEWAY_SCHEMA = 'gateway';

export function openGatewayOrm(url: string, poolMax?: number, log?: Logger): Promise<Orm> {
  return openOrm({ url, schema: GATEWAY_SCHEMA, entities, migrations, poolMax, log });
}
