import { migrateService } from '@acct/kit';
import { documents } from './service';

migrateService(documents());
