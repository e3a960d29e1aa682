import { migrateService } from '@acct/kit';
import { documentsService } from './service';

migrateService(documentsService());
