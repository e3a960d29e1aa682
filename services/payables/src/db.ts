import { ormOpener } from '@acct/kit';
import { payablesService } from './service';

/** Opens MikroORM on the payables schema (tests; main and migrate open it through startService). */
export const openPayablesOrm = ormOpener(payablesService());
