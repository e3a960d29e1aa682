import { startService } from '@acct/kit';
import { payablesService } from './service';

startService(payablesService());
