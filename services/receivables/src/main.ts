import { baseConfigSpec, createMetrics, loadConfig, runMain, startRuntime, v } from '@acct/kit';
import { openReceivablesOrm } from './db';
import { createReceivablesServer } from './service';

runMain(async () => {
  const config = loadConfig({ ...baseConfigSpec, OPS_PORT: v.port(9101, 'receivables ops port') });
  const metrics = createMetrics('receivables');
  const rt = await startRuntime({ name: 'receivables', config, metrics, openOrm: openReceivablesOrm });
  const server = createReceivablesServer({ nc: rt.nc, prefix: config.NATS_PREFIX, orm: rt.orm, log: rt.log, metrics });
  server.start();
  rt.onShutdown([{ name: 'rpc', run: () => server.drain() }]);
  rt.log.info({ ops_port: rt.ops.port }, 'receivables serving');
});
