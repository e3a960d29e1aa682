import { startService } from '@acct/kit';
import { documentsService } from './service';

startService(documentsService());
