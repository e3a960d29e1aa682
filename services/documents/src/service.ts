import { RpcClient, type ServiceDefinition } from '@acct/kit';
import { type DocumentsConfig, loadDocumentsConfig } from './config';
import { registerHandlers } from './handlers';
import { registerShareHandlers } from './shares';
import { migrations } from './migrations';
import { Storage } from './storage';
import { Sweeper } from './sweeper';

/** The documents service: evidence files in S3, their links, and the settings. */
export function documentsService(opts: { config?: DocumentsConfig; storage?: Storage } = {}): ServiceDefinition {
  let config = opts.config;
  let storage = opts.storage;
  const cfg = () => (config ??= loadDocumentsConfig());
  const store = () => (storage ??= new Storage(cfg()));
  return {
    name: 'documents',
    entities: [],
    migrations,
    register(wiring) {
      const rpc = new RpcClient(wiring.nc, wiring.prefix, cfg().DOCUMENTS_RPC_TIMEOUT_MS, wiring.metrics, wiring.log);
      const deps = { server: wiring.server, orm: wiring.orm, rpc, storage: store(), config: cfg() };
      registerHandlers(deps);
      registerShareHandlers(deps);
    },
    workers(wiring) {
      const sweeper = new Sweeper(wiring.orm, store(), cfg().PENDING_UPLOAD_TTL_S * 1000, wiring.log);
      return [{ name: 'pending-upload-sweeper', start: () => Promise.resolve(sweeper.start()), stop: () => Promise.resolve(sweeper.stop()) }];
    },
    checks: { s3: () => store().bucketReachable() },
  };
}
