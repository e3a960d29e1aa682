import { startService } from '@acct/kit';
import { receivables } from './service';

startService(receivables);
