import { randomUUID } from 'node:crypto';
import { CONSUMERS, UUID, outboundSubject, outboundSubjectFilter, type OutboundEventType } from '@acct/contracts';
import { BATCH_LINGER_MS, type ConsumedEvent, type EntityManager, EventConsumer, type Logger, type ServiceWiring } from '@acct/kit';
import type { WebhookConfig } from '../config';
import { deliveryBody, isOutboundEvent } from '../domain/body';
import { subscribers } from '../queries/endpoints';
import { insertDelivery } from '../queries/deliveries';
import { Subscriptions } from './subscriptions';

/**
 * Applies one outbound event (inside the consumer's transaction, which also claims the event id):
 * one delivery per subscribed enabled endpoint of the same connected app and environment.
 */
async function applyOutboundEvent(em: EntityManager, event: ConsumedEvent, log: Logger): Promise<number> {
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

/**
 * Why an outbound message must not become deliveries, or undefined: its envelope must be whole, its
 * ids uuids, and its subject the one of its type (a receiver trusts what it is sent).
 */
export function outboundRefusal(prefix: string, event: ConsumedEvent): string | undefined {
  const e = event.payload;
  if (!isOutboundEvent(e)) return 'not an outbound event: the envelope needs id, type, created_at, organization_id, connected_app_id, environment (test|live) and data';
  if (!UUID.test(e.organization_id) || !UUID.test(e.connected_app_id)) return 'organization_id or connected_app_id is not a uuid';
  if (event.subject !== outboundSubject(prefix, e.type as OutboundEventType)) return `a ${e.type} event on ${event.subject}`;
  return undefined;
}

/**
 * The durable consumer of `<prefix>.events.outbound.>`; `onDeliveries` runs once an event's deliveries
 * have committed. An event no enabled endpoint subscribes to is skipped (acked, no transaction: see
 * Subscriptions).
 */
export function outboundConsumer(wiring: Pick<ServiceWiring, 'nc' | 'prefix' | 'orm' | 'log' | 'metrics'>, config: WebhookConfig, onDeliveries: () => void): EventConsumer {
  const subscriptions = new Subscriptions(wiring.orm);
  return new EventConsumer({
    nc: wiring.nc,
    prefix: wiring.prefix,
    orm: wiring.orm,
    log: wiring.log,
    metrics: wiring.metrics,
    name: CONSUMERS.webhookOutbound,
    ackWaitMs: config.ackWaitMs,
    filterSubject: outboundSubjectFilter(wiring.prefix),
    refuse: (event) => outboundRefusal(wiring.prefix, event),
    skip: (events) => subscriptions.skip(events),
    // Events a burst sends share one subscription check and one ack round (webhooks are sent later anyway).
    lingerMs: BATCH_LINGER_MS,
    apply: async (em, event) => {
      // Wake the workers once the transaction that creates the deliveries has committed.
      if ((await applyOutboundEvent(em, event, wiring.log)) > 0) setTimeout(onDeliveries, 5);
    },
  });
}
