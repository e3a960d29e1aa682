import { startService } from '@acct/kit';
import { reportingService } from './service';

startService(reportingService());
