import { migrateMain } from '@acct/kit';
import { openGatewayOrm } from './db';

migrateMain('gateway', openGatewayOrm);
