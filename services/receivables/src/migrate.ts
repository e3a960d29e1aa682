import { migrateService } from '@acct/kit';
import { receivables } from './service';

migrateService(receivables);
