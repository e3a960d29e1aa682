import { RpcClient, type ServiceDefinition } from '@acct/kit';
import { Storage } from './adapters/storage';
import { type DocumentsConfig, loadDocumentsConfig } from './config';
import type { DocumentsDeps } from './flows/deps';
import { registerDocumentHandlers } from './handlers/documents.handler';
import { registerPortalHandlers } from './handlers/portal.handler';
import { registerRenderHandlers } from './handlers/renders.handler';
import { registerSettingsHandlers } from './handlers/settings.handler';
import { registerShareHandlers } from './handlers/shares.handler';
import { registerUploadHandlers } from './handlers/uploads.handler';
import { documentsMetrics } from './metrics';
import { migrations } from './migrations';
import { Sweeper } from './workers/sweeper';

/** The documents service: evidence files in S3, their links, shares and renders, the portal, and the settings. */
export function documentsService(opts: { config?: DocumentsConfig; storage?: Storage } = {}): ServiceDefinition {
  let config = opts.config;
  let storage = opts.storage;
  // Read when the service is wired (not when this module loads, which migrate does too).
  const cfg = () => (config ??= loadDocumentsConfig());
  const store = () => (storage ??= new Storage(cfg()));
  return {
    name: 'documents',
    entities: [],
    migrations,
    register(wiring) {
      const { server } = wiring;
      const rpc = new RpcClient(wiring.nc, wiring.prefix, cfg().DOCUMENTS_RPC_TIMEOUT_MS, wiring.metrics, wiring.log);
      const deps: DocumentsDeps = { orm: wiring.orm, rpc, storage: store(), config: cfg() };
      if (wiring.metrics) deps.storage.errors = documentsMetrics(wiring.metrics).s3Errors;
      registerUploadHandlers(server, deps);
      registerDocumentHandlers(server, deps);
      registerShareHandlers(server, deps);
      registerRenderHandlers(server, deps);
      registerPortalHandlers(server, deps);
      registerSettingsHandlers(server, deps);
    },
    workers(wiring) {
      const sweeper = new Sweeper(wiring.orm, store(), cfg().PENDING_UPLOAD_TTL_S * 1000, wiring.log);
      return [{ name: 'pending-upload-sweeper', start: () => Promise.resolve(sweeper.start()), stop: () => Promise.resolve(sweeper.stop()) }];
    },
    checks: { s3: () => store().bucketReachable() },
  };
}
