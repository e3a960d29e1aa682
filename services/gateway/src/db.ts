import { type Logger, type Orm, ormOpener } from '@acct/kit';
import { gatewayService } from './service';

/** Opens MikroORM on the gateway schema (main, migrate, the admin CLI and tests). */
export function openGatewayOrm(url: string, poolMax?: number, log?: Logger): Promise<Orm> {
  return ormOpener(gatewayService())(url, poolMax, log);
}
