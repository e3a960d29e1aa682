import { migrateService } from '@acct/kit';
import { reportingService } from './service';

migrateService(reportingService());
