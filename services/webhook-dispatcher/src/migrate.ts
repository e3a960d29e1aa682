import { migrateService } from '@acct/kit';
import { webhookDispatcherService } from './service';

migrateService(webhookDispatcherService());
