import { ormOpener } from '@acct/kit';
import { receivablesService } from './service';

/** Opens MikroORM on the receivables schema (tests; main and migrate open it through startService). */
export const openReceivablesOrm = ormOpener(receivablesService());
