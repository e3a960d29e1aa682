import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SERVICE_MANIFEST } from '@acct/contracts';
import { baseConfigSpec, gatewayPortVar, loadConfig, runMain, v } from '@acct/kit';
import { NatsCluster, generateStackBusAuth } from './nats-server';
import { bootstrapDevKey, dashboardLine } from './seed';
import { freePort, startStack } from './stack';

/**
 * `npm run stack:cluster`: the system as SREs run it, on this machine: a 3-node NATS JetStream
 * cluster of its own (free localhost ports, the events stream in 3 replicas), STACK_REPLICAS (2)
 * processes of every service and of the gateway, behind a round-robin balancer on GATEWAY_PORT.
 */
runMain(async () => {
  const config = loadConfig({
    DATABASE_URL: baseConfigSpec.DATABASE_URL,
    NATS_PREFIX: baseConfigSpec.NATS_PREFIX,
    GATEWAY_PORT: gatewayPortVar(),
    STACK_REPLICAS: v.int(2, 'processes of every service and of the gateway', 1, 8),
    STACK_NATS_NODES: v.int(3, 'nodes of the NATS JetStream cluster', 1, 5),
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-cluster-'));
  // Users on the bus: each service publishes and subscribes on its own subjects only (busPermissions).
  const auth = generateStackBusAuth(config.NATS_PREFIX);
  const adminSeed = path.join(dir, 'admin.nkey');
  fs.writeFileSync(adminSeed, `${auth.seeds.admin}\n`, { mode: 0o600 });
  const cluster = await NatsCluster.create(dir, config.STACK_NATS_NODES, freePort, dir, auth.server);
  process.stdout.write(`starting a ${config.STACK_NATS_NODES}-node NATS cluster, data and logs in ${dir}\n`);
  // On fresh ports again if one picked was taken before nats-server bound it.
  await cluster.start();
  const stack = await startStack({
    databaseUrl: config.DATABASE_URL,
    natsUrl: cluster.url,
    natsPrefix: config.NATS_PREFIX,
    gatewayPort: config.GATEWAY_PORT,
    replicas: config.STACK_REPLICAS,
    natsSeeds: auth.seeds,
    logs: { dir },
    supervise: true,
    log: (line) => process.stdout.write(`[stack] ${line}\n`),
    env: { EVENTS_STREAM_REPLICAS: String(Math.min(3, config.STACK_NATS_NODES)) },
  });
  const seed = await bootstrapDevKey(config.DATABASE_URL, `${stack.gatewayUrl}/dashboard`);
  process.stdout.write(
    [
      '',
      `Accounting API (${config.STACK_REPLICAS} × ${SERVICE_MANIFEST.map((s) => s.name).join(', ')}) on ${stack.gatewayUrl}`,
      `  gateways: ${stack.gatewayUrls().join(', ')}`,
      `  NATS: ${cluster.url} (users per service; admin: NATS_NKEY_SEED=$(cat ${adminSeed}))`,
      `  test key: ${seed.test_key}`,
      dashboardLine(seed, `${stack.gatewayUrl}/dashboard`),
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await stack.stop();
    await cluster.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
});
