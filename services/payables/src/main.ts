import { startService } from '@acct/kit';
import { payables } from './service';

startService(payables);
