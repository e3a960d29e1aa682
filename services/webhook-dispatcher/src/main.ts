import { startService } from '@acct/kit';
import { webhookDispatcher } from './service';

startService(webhookDispatcher());
