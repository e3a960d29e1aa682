import { OPS_PORT_DEFAULTS, baseConfigSpec, gatewayPortVar, loadConfig, runMain } from '@acct/kit';
import { bootstrapDevKey } from './seed';
import { startStack } from './stack';

/** `npm start`: the whole system on this machine, against Postgres and NATS on localhost. */
runMain(async () => {
  const config = loadConfig({
    DATABASE_URL: baseConfigSpec.DATABASE_URL,
    NATS_URL: baseConfigSpec.NATS_URL,
    NATS_PREFIX: baseConfigSpec.NATS_PREFIX,
    GATEWAY_PORT: gatewayPortVar(),
  });
  process.stdout.write(`starting: database ${config.DATABASE_URL.replace(/\/\/[^@]*@/, '//')}, NATS ${config.NATS_URL}, prefix ${config.NATS_PREFIX}\n`);
  const stack = await startStack({
    databaseUrl: config.DATABASE_URL,
    natsUrl: config.NATS_URL,
    natsPrefix: config.NATS_PREFIX,
    gatewayPort: config.GATEWAY_PORT,
    opsPorts: OPS_PORT_DEFAULTS,
    logs: 'inherit',
  });
  const seed = await bootstrapDevKey(config.DATABASE_URL);
  process.stdout.write(
    [
      '',
      `Accounting API listening on ${stack.gatewayUrl}`,
      `  organization_id   ${seed.organization_id}`,
      `  connected_app_id  ${seed.connected_app_id}`,
      `  test key          ${seed.test_key}`,
      '',
      `  try: curl -H "Authorization: Bearer ${seed.test_key}" ${stack.gatewayUrl}/api/v1/auth/check`,
      `  OpenAPI: ${stack.gatewayUrl}/developers/openapi.yaml   metrics: http://127.0.0.1:${OPS_PORT_DEFAULTS.gateway}/metrics`,
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\nstopping...\n');
    await stack.stop();
    process.stdout.write('stopped.\n');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
});
