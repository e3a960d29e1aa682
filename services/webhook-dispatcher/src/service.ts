import type { ServiceDefinition } from '@acct/kit';
import type { Resolver } from './adapters/ssrf';
import { type WebhookConfig, loadWebhookConfig } from './config';
import { registerWebhookEndpointHandlers } from './handlers/webhook-endpoints.handler';
import { migrations } from './migrations';
import { type Delivery, startDelivery } from './workers/delivery';

/**
 * The webhook dispatcher: endpoints (RPC), the outbound-event consumer and the delivery workers.
 * `resolve` (tests) replaces the system DNS for the SSRF checks at creation, before a send and at
 * connect time.
 */
export function webhookDispatcherService(opts: { config?: WebhookConfig; resolve?: Resolver } = {}): ServiceDefinition {
  let config = opts.config;
  let wake: () => void = () => undefined;
  const cfg = () => (config ??= loadWebhookConfig());
  return {
    name: 'webhook-dispatcher',
    entities: [],
    migrations,
    register(wiring) {
      registerWebhookEndpointHandlers(wiring.server, wiring.orm, cfg(), { resolve: opts.resolve, onDeliveries: () => wake() });
    },
    workers(wiring) {
      let delivery: Delivery | undefined;
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
