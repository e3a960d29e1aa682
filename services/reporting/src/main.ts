import { startService } from '@acct/kit';
import { reporting } from './service';

startService(reporting);
