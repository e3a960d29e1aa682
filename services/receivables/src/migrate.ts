import { migrateService } from '@acct/kit';
import { receivablesService } from './service';

migrateService(receivablesService());
