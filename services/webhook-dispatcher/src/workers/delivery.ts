import type { ServiceWiring } from '@acct/kit';
import { Sender } from '../adapters/sender';
import type { Resolver } from '../adapters/ssrf';
import type { WebhookConfig } from '../config';
import { outboundConsumer } from '../consumers/outbound';
import { webhookMetrics } from '../metrics';
import { Dispatcher } from './dispatcher';

export interface Delivery {
  dispatcher: Dispatcher;
  stop: () => Promise<void>;
}

/**
 * The outbound-event consumer and the delivery workers of one process (the service's worker; the
 * integration tests also start and stop it on its own, to stand for a crash or another replica).
 */
export async function startDelivery(
  wiring: Pick<ServiceWiring, 'nc' | 'prefix' | 'orm' | 'log' | 'metrics'>,
  config: WebhookConfig,
  opts: { resolve?: Resolver } = {},
): Promise<Delivery> {
  const sender = new Sender({ timeoutMs: config.timeoutMs, allowPrivate: config.allowPrivateUrls, resolve: opts.resolve });
  const dispatcher = new Dispatcher({ orm: wiring.orm, log: wiring.log, config, sender, metrics: webhookMetrics(wiring.metrics, wiring.orm) });
  const consumer = outboundConsumer(wiring, config, () => dispatcher.wake());
  dispatcher.start();
  await consumer.start();
  return {
    dispatcher,
    stop: async () => {
      await consumer.stop();
      await dispatcher.stop();
      await sender.close();
    },
  };
}
