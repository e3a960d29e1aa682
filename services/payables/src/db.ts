import { ormOpener, schemaOf } from '@acct/kit';
import { payables } from './service';

export const PAYABLES_SCHEMA = schemaOf('payables');

/** Opens MikroORM on the payables schema (tests; main and migrate open it through startService). */
export const openPayablesOrm = ormOpener(payables);
