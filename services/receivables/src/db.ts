import { ormOpener, schemaOf } from '@acct/kit';
import { receivables } from './service';

export const RECEIVABLES_SCHEMA = schemaOf('receivables');

/** Opens MikroORM on the receivables schema (tests; main and migrate open it through startService). */
export const openReceivablesOrm = ormOpener(receivables);
