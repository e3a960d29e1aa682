import { migrateService } from '@acct/kit';
import { payablesService } from './service';

migrateService(payablesService());
