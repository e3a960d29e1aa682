import { CONSUMERS, outboundSubjectFilter } from '@acct/contracts';
import { EventConsumer, type ServiceDefinition, type ServiceWiring } from '@acct/kit';
import { type WebhookConfig, loadWebhookConfig } from './config';
import { applyOutboundEvent } from './consume';
import { Dispatcher } from './dispatcher';
import { registerHandlers } from './handlers';
import { webhookMetrics } from './metrics';
import { migrations } from './migrations';
import { Sender } from './sender';
import type { Resolver } from './ssrf';

/** The consumer and the delivery workers of one process (also started by the integration tests). */
export async function startDelivery(
  wiring: Pick<ServiceWiring, 'nc' | 'prefix' | 'orm' | 'log' | 'metrics'>,
  config: WebhookConfig,
  opts: { resolve?: Resolver } = {},
): Promise<{ dispatcher: Dispatcher; stop: () => Promise<void> }> {
  const sender = new Sender({ timeoutMs: config.timeoutMs, allowPrivate: config.allowPrivateUrls, resolve: opts.resolve });
  const dispatcher = new Dispatcher({ orm: wiring.orm, log: wiring.log, config, sender, metrics: webhookMetrics(wiring.metrics, wiring.orm) });
  const consumer = new EventConsumer({
    nc: wiring.nc,
    prefix: wiring.prefix,
    orm: wiring.orm,
    log: wiring.log,
    metrics: wiring.metrics,
    name: CONSUMERS.webhookOutbound,
    ackWaitMs: config.ackWaitMs,
    filterSubject: outboundSubjectFilter(wiring.prefix),
    apply: async (em, event) => {
      // Wake the workers once the transaction that creates the deliveries has committed.
      if ((await applyOutboundEvent(em, event, wiring.log)) > 0) setTimeout(() => dispatcher.wake(), 5);
    },
  });
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

/** The webhook dispatcher: endpoints (RPC), the outbound-event consumer and the delivery workers. */
export function webhookDispatcherService(opts: { config?: WebhookConfig; resolve?: Resolver } = {}): ServiceDefinition {
  let config = opts.config;
  let wake: () => void = () => undefined;
  const cfg = () => (config ??= loadWebhookConfig());
  return {
    name: 'webhook-dispatcher',
    entities: [],
    migrations,
    register(wiring) {
      registerHandlers(wiring.server, wiring.orm, cfg(), { resolve: opts.resolve, onDeliveries: () => wake() });
    },
    workers(wiring) {
      let delivery: Awaited<ReturnType<typeof startDelivery>> | undefined;
      return [
        {
          name: 'delivery',
          start: async () => {
            const started = await startDelivery(wiring, cfg(), { resolve: opts.resolve });
            delivery = started;
            wake = () => started.dispatcher.wake();
          },
          stop: async () => {
            await delivery?.stop();
          },
        },
      ];
    },
  };
}
