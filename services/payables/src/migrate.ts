import { migrateService } from '@acct/kit';
import { payables } from './service';

migrateService(payables);
