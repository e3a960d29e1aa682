import { migrateService } from '@acct/kit';
import { webhookDispatcher } from './service';

migrateService(webhookDispatcher());
