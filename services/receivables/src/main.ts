import { startService } from '@acct/kit';
import { receivablesService } from './service';

startService(receivablesService());
