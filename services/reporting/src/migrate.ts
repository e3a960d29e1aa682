import { migrateService } from '@acct/kit';
import { reporting } from './service';

migrateService(reporting);
