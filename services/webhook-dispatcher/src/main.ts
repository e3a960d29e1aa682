import { startService } from '@acct/kit';
import { webhookDispatcherService } from './service';

startService(webhookDispatcherService());
