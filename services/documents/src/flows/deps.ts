import type { Orm, RpcClient } from '@acct/kit';
import type { Storage } from '../adapters/storage';
import type { DocumentsConfig } from '../config';

/** What the flows of the service work with: its database, the other services (records), the store and the settings. */
export interface DocumentsDeps {
  orm: Orm;
  rpc: Pick<RpcClient, 'call'>;
  storage: Storage;
  config: DocumentsConfig;
}
