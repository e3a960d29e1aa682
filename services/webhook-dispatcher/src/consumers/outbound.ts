import { randomUUID } from 'node:crypto';
import { CONSUMERS, outboundSubjectFilter } from '@acct/contracts';
import { type ConsumedEvent, type EntityManager, EventConsumer, type Logger, type ServiceWiring } from '@acct/kit';
import type { WebhookConfig } from '../config';
import { deliveryBody, isOutboundEvent } from '../domain/body';
import { insertDelivery, subscribers } from '../queries';

/**
 * Applies one outbound event (inside the consumer's transaction, which also claims the event id):
 * one delivery per subscribed enabled endpoint of the same connected app and environment.
 */
export async function applyOutboundEvent(em: EntityManager, event: ConsumedEvent, log: Logger): Promise<number> {
  const e = event.payload;
  if (!isOutboundEvent(e)) {
    log.error({ event_id: event.id, subject: event.subject }, 'outbound event without its envelope; nothing to deliver');
    return 0;
  }
  const endpoints = await subscribers(em, { organizationId: e.organization_id, connectedAppId: e.connected_app_id, environment: e.environment }, e.type);
  let created = 0;
  for (const ep of endpoints) {
    const id = randomUUID();
    if (await insertDelivery(em, { id, endpointId: ep.id, eventId: e.id, eventType: e.type, body: deliveryBody(id, e), createdAt: new Date() })) created++;
  }
  return created;
}

/** The durable consumer of `<prefix>.events.outbound.>`; `onDeliveries` runs once an event's deliveries have committed. */
export function outboundConsumer(wiring: Pick<ServiceWiring, 'nc' | 'prefix' | 'orm' | 'log' | 'metrics'>, config: WebhookConfig, onDeliveries: () => void): EventConsumer {
  return new EventConsumer({
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
      if ((await applyOutboundEvent(em, event, wiring.log)) > 0) setTimeout(onDeliveries, 5);
    },
  });
}
