import { baseConfigSpec, createMetrics, ensureEventsStream, loadConfig, opsPortVar, runMain, startRuntime, v } from '@acct/kit';
import { openReceivablesOrm } from './db';
import { createReceivablesServer } from './service';

runMain(async () => {
  const config = loadConfig({
    ...baseConfigSpec,
    OPS_PORT: opsPortVar('receivables'),
    OUTBOX_RELAY_INTERVAL_MS: v.int(5000, 'how often the outbox relay publishes rows a crash left behind', 50, 600_000),
  });
  const metrics = createMetrics('receivables');
  const rt = await startRuntime({ name: 'receivables', config, metrics, openOrm: openReceivablesOrm });
  await ensureEventsStream(rt.nc, config.NATS_PREFIX);
  const { server, outbox } = createReceivablesServer({ nc: rt.nc, prefix: config.NATS_PREFIX, orm: rt.orm, log: rt.log, metrics });
  server.start();
  // Publish anything a previous process committed but did not get to publish, then keep watching.
  await outbox.relayOnce().catch((err) => rt.log.warn({ err }, 'initial outbox relay failed'));
  outbox.startRelay();
  outbox.registerBacklogMetrics();
  rt.onShutdown([
    { name: 'rpc', run: () => server.drain() },
    { name: 'outbox', run: () => outbox.stopRelay() },
  ]);
  rt.log.info({ ops_port: rt.ops.port }, 'receivables serving');
});
