import { startService } from '@acct/kit';
import { documents } from './service';

startService(documents());
