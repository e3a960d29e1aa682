import { UUID } from '@acct/contracts';
import { baseConfigSpec, databaseUrlOf, loadConfig, ormOpener, runMain } from '@acct/kit';
import { queueTestDelivery } from '../flows/endpoints';
import { findEndpointById } from '../queries/endpoints';
import { webhookDispatcherService } from '../service';

const USAGE = `usage: npm run admin -- webhooks test <endpoint id>

  test <endpoint id>    queue a webhook.test delivery to the endpoint (the running dispatcher sends it)`;

/**
 * The operator's webhook commands (`npm run admin -- webhooks ...` hands them over to this script,
 * dist/workers/admin.js): a one-shot process beside main.js and migrate.js, not a loop; it queues
 * the delivery and the running dispatcher's workers send it.
 */
runMain(async () => {
  const [command, id, ...extra] = process.argv.slice(2);
  if (command !== 'test' || !id || extra.length > 0) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(command === 'help' || command === undefined ? 0 : 1);
  }
  if (!UUID.test(id)) {
    process.stderr.write(`error: ${id} is not an endpoint id\n`);
    process.exit(1);
  }
  const { DATABASE_URL } = loadConfig({ DATABASE_URL: baseConfigSpec.DATABASE_URL });
  const orm = await ormOpener(webhookDispatcherService({ config: undefined }))(databaseUrlOf('webhook-dispatcher', DATABASE_URL), 2);
  try {
    const em = orm.em.fork();
    const ep = await findEndpointById(em, id);
    if (!ep) {
      process.stderr.write(`error: webhook endpoint ${id} was not found\n`);
      process.exitCode = 1;
      return;
    }
    if (ep.status !== 'enabled') {
      process.stderr.write(`error: webhook endpoint ${id} is disabled: ${ep.disabled_reason ?? ''}\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(`${JSON.stringify(await queueTestDelivery(em, ep), null, 2)}\n`);
  } finally {
    await orm.close(true);
  }
});
