import { Optional, type Static, Type } from '@sinclair/typebox';
import { OUTBOUND_EVENT_TYPES } from '../events';
import { limits } from '../limits';
import { Nullable, StringEnum, dateTime, listEnvelope, obj, paginationQuery, singleEnvelope, uuid } from './common';

/** Webhook endpoints, deliveries and attempts (the webhook-dispatcher service). */

/**
 * What an endpoint can subscribe to: every active outbound type of SPEC.md §6, webhook.test included
 * (API-DECISIONS §9; the test action delivers webhook.test whatever the endpoint subscribes to).
 */
export const WEBHOOK_EVENT_TYPES = ['webhook.test', ...OUTBOUND_EVENT_TYPES] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];
export const webhook_url_length_max = 2048;

export const webhookEndpointCreateBody = obj({
  url: Type.String({
    minLength: 1,
    maxLength: webhook_url_length_max,
    description:
      'Where deliveries are POSTed; stored and returned WHATWG-normalised, without credentials. Live mode: https only; test mode also accepts http. In every mode the host must not be or resolve to a loopback, private, link-local, CGNAT, multicast, unspecified or reserved address, nor an IPv4-mapped, IPv4-compatible, 6to4, Teredo or NAT64 form of one (checked now and at every connection; redirects are not followed), unless the operator set WEBHOOK_ALLOW_PRIVATE_URLS=true.',
  }),
  event_types: Optional(Type.Array(StringEnum(WEBHOOK_EVENT_TYPES), { minItems: 1, uniqueItems: true, description: 'Outbound event types to deliver; default all of them.' })),
  description: Optional(Type.String({ maxLength: limits.description_length_max })),
});

export const webhookEndpoint = obj({
  id: uuid,
  url: Type.String(),
  event_types: Type.Array(StringEnum(WEBHOOK_EVENT_TYPES)),
  description: Nullable(Type.String()),
  status: StringEnum(WEBHOOK_ENDPOINT_STATUSES),
  disabled_reason: Nullable(Type.String({ description: 'Why the endpoint was disabled (e.g. every delivery failed for 3 days).' })),
  created_at: dateTime,
});
export type WebhookEndpointDto = Static<typeof webhookEndpoint>;
/** The create reply alone carries the signing secret. */
export const webhookEndpointCreated = obj({
  ...webhookEndpoint.properties,
  secret: Type.String({ description: 'whsec_… signing secret, shown only in this response.' }),
});

export const webhookAttempt = obj({
  attempted_at: dateTime,
  status_code: Nullable(Type.Integer({ description: 'HTTP status of the response; null when none arrived.' })),
  duration_ms: Type.Integer({ minimum: 0 }),
  error: Nullable(Type.String({ description: 'timeout, connection error, refused address, redirect, …' })),
  response_body: Nullable(Type.String({ description: 'The first 1 KiB of the response body.' })),
});
export type WebhookAttemptDto = Static<typeof webhookAttempt>;

export const webhookDelivery = obj({
  id: uuid,
  endpoint_id: uuid,
  event_id: uuid,
  event_type: Type.String(),
  status: StringEnum(WEBHOOK_DELIVERY_STATUSES),
  attempt_count: Type.Integer({ minimum: 0 }),
  next_attempt_at: Nullable(dateTime),
  delivered_at: Nullable(dateTime),
  created_at: dateTime,
  attempts: Type.Array(webhookAttempt, { description: 'Oldest first.' }),
});
export type WebhookDeliveryDto = Static<typeof webhookDelivery>;

export const webhookEndpointListQuery = obj({ ...paginationQuery });
export const webhookDeliveryListQuery = obj({ ...paginationQuery });
export const webhookEndpointResponse = singleEnvelope('webhook_endpoint', webhookEndpoint);
export const webhookEndpointCreateResponse = singleEnvelope('webhook_endpoint', webhookEndpointCreated);
export const webhookEndpointListResponse = listEnvelope('webhook_endpoints', webhookEndpoint);
export const webhookDeliveryResponse = singleEnvelope('webhook_delivery', webhookDelivery);
export const webhookDeliveryListResponse = listEnvelope('webhook_deliveries', webhookDelivery);
export const webhookEndpointDeleted = obj({ id: uuid, deleted: Type.Literal(true) });
export const webhookEndpointDeleteResponse = singleEnvelope('webhook_endpoint', webhookEndpointDeleted);
