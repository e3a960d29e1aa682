import { migrateMain } from '@acct/kit';
import { openReceivablesOrm } from './db';

migrateMain('receivables', openReceivablesOrm);
