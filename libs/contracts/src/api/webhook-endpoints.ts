import { Optional, type Static, Type } from '@sinclair/typebox';
import { DEFAULT_OUTBOUND_EVENT_TYPES, OUTBOUND_EVENT_TYPES } from '../events';
import { limits } from '../limits';
import { recordResource } from '../record-resource';
import { Nullable, StringEnum, dateTime, idParams, listEnvelope, obj, paginationQuery, singleEnvelope, uuid } from '../schemas/common';
import { metadataInput, metadataRecord } from '../schemas/metadata';

/** Webhook endpoints, deliveries and attempts (the webhook-dispatcher service). */

/**
 * What an endpoint can subscribe to: every active outbound type of SPEC.md §6, webhook.test included
 * (API-DECISIONS §9; the test action delivers webhook.test whatever the endpoint subscribes to).
 */
export const WEBHOOK_EVENT_TYPES = ['webhook.test', ...OUTBOUND_EVENT_TYPES] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** What an endpoint created without event_types subscribes to (API-DECISIONS §15: the list before the planned events). */
export const WEBHOOK_DEFAULT_EVENT_TYPES = ['webhook.test', ...DEFAULT_OUTBOUND_EVENT_TYPES] as const satisfies readonly WebhookEventType[];
const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export const webhook_url_length_max = 2048;

const webhookUrl = Type.String({
  minLength: 1,
  maxLength: webhook_url_length_max,
  description:
    'Where deliveries are POSTed; stored and returned WHATWG-normalised, without credentials. Live mode: https only; test mode also accepts http. In every mode the host must not be or resolve to a loopback, private, link-local, CGNAT, multicast, unspecified or reserved address, nor an IPv4-mapped, IPv4-compatible, 6to4, Teredo or NAT64 form of one (checked now and at every connection; redirects are not followed), unless the operator set WEBHOOK_ALLOW_PRIVATE_URLS=true.',
});
const webhookEventTypes = Type.Array(StringEnum(WEBHOOK_EVENT_TYPES), {
  minItems: 1,
  uniqueItems: true,
  description: `Outbound event types to deliver; default ${WEBHOOK_DEFAULT_EVENT_TYPES.join(', ')} (api_key.revoked only to endpoints that name it).`,
});

export const webhookEndpointCreateBody = obj({
  url: webhookUrl,
  event_types: Optional(webhookEventTypes),
  description: Optional(Type.String({ maxLength: limits.description_length_max })),
  metadata: Optional(metadataInput),
});

/** PATCH /webhook-endpoints/{id} (API-DECISIONS §11): fields left out keep their value; at least one is required. */
export const webhookEndpointUpdateBody = obj(
  {
    url: Optional(webhookUrl),
    event_types: Optional(webhookEventTypes),
    description: Optional(Nullable(Type.String({ maxLength: limits.description_length_max, description: 'null clears it.' }))),
    metadata: Optional(metadataInput),
    enabled: Optional(
      Type.Boolean({
        description:
          'true re-enables a disabled endpoint (its failure history starts afresh; deliveries failed while it was disabled stay failed and can be retried one by one); false disables it (its pending deliveries fail).',
      }),
    ),
  },
  { minProperties: 1 },
);

export const WEBHOOK_SECRET_OVERLAP_HOURS_MAX = 72;
export const WEBHOOK_SECRET_OVERLAP_HOURS_DEFAULT = 24;
/** POST /webhook-endpoints/{id}/rotate-secret (API-DECISIONS §11). */
export const webhookSecretRotateBody = obj({
  expire_current_in_hours: Optional(
    Type.Integer({
      minimum: 0,
      maximum: WEBHOOK_SECRET_OVERLAP_HOURS_MAX,
      description: `Hours the current secret keeps signing beside the new one (default ${WEBHOOK_SECRET_OVERLAP_HOURS_DEFAULT}); 0 retires it at once.`,
    }),
  ),
});

export const webhookDeliveryParams = obj({ id: uuid, delivery_id: uuid });

export const webhookEndpoint = obj({
  id: uuid,
  url: Type.String(),
  event_types: Type.Array(StringEnum(WEBHOOK_EVENT_TYPES)),
  description: Nullable(Type.String()),
  status: StringEnum(WEBHOOK_ENDPOINT_STATUSES),
  disabled_reason: Nullable(Type.String({ description: 'Why the endpoint was disabled (e.g. every delivery failed for 3 days).' })),
  previous_secret_expires_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'After a secret rotation: until when deliveries are also signed with the secret before it (a second v1 entry of webhook-signature); null when none.',
    }),
  ),
  metadata: metadataRecord,
  created_at: dateTime,
});
export type WebhookEndpointDto = Static<typeof webhookEndpoint>;
/** The create and rotate-secret replies alone carry the signing secret. */
const webhookEndpointCreated = obj({
  ...webhookEndpoint.properties,
  secret: Type.String({ description: 'whsec_… signing secret, shown only in this response (create, rotate-secret).' }),
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

export const webhookDeliveryListQuery = obj({ ...paginationQuery });
export const webhookEndpointCreateResponse = singleEnvelope('webhook_endpoint', webhookEndpointCreated);
export const webhookDeliveryResponse = singleEnvelope('webhook_delivery', webhookDelivery);
export const webhookDeliveryListResponse = listEnvelope('webhook_deliveries', webhookDelivery);
export const webhookEndpointDeleteResponse = singleEnvelope('webhook_endpoint', obj({ id: uuid, deleted: Type.Literal(true) }));

export const {
  response: webhookEndpointResponse,
  listResponse: webhookEndpointListResponse,
  operations: webhookEndpointOperations,
  routes: webhookEndpointRoutes,
} = recordResource({
  service: 'webhook-dispatcher',
  resource: 'webhook_endpoints',
  one: 'webhook_endpoint',
  record: webhookEndpoint,
  create: webhookEndpointCreateBody,
  query: obj({ ...paginationQuery }),
  http: { name: 'Webhook endpoint', path: '/api/v1/webhook-endpoints', tag: 'Webhooks', module: 'webhooks' },
  more: ({ response }) => ({
    // The create and rotate-secret replies alone carry the signing secret.
    'webhook_endpoints.create': { body: webhookEndpointCreateBody, reply: webhookEndpointCreateResponse },
    'webhook_endpoints.update': { params: idParams, body: webhookEndpointUpdateBody, reply: response },
    'webhook_endpoints.rotate_secret': { params: idParams, body: webhookSecretRotateBody, reply: webhookEndpointCreateResponse },
    'webhook_endpoints.retry_delivery': { params: webhookDeliveryParams, reply: webhookDeliveryResponse },
    'webhook_endpoints.delete': { params: idParams, reply: webhookEndpointDeleteResponse },
    'webhook_endpoints.test': { params: idParams, reply: webhookDeliveryResponse },
    'webhook_endpoints.deliveries': { params: idParams, query: webhookDeliveryListQuery, reply: webhookDeliveryListResponse },
  }),
  routes: (endpoints) => [
    endpoints.create({
      summary: 'Register a webhook endpoint for the connected app and environment of the key; the response alone carries its signing secret.',
      description:
        'Deliveries are signed JSON POSTs: Service-Signature is the hex HMAC-SHA-256 under the secret of `<Service-Timestamp>.<raw body>`, Service-Timestamp is Unix seconds, ' +
        'Service-Event-Id equals the body id (the delivery id, the same across retries). Standard Webhooks headers come beside them: webhook-id (the delivery id), webhook-timestamp and ' +
        'webhook-signature (space-separated `v1,<base64 HMAC-SHA-256 of "<webhook-id>.<webhook-timestamp>.<raw body>">` keyed by the base64-decoded part after whsec_; two entries while a ' +
        'rotated secret still signs, see rotate-secret). A 2xx within 10 s is success; redirects are not followed. Failed deliveries are retried after ' +
        '1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h and 24 h, then marked failed; an endpoint whose deliveries all fail for 3 days is disabled (disabled_reason says why). ' +
        'Live mode: https only, and the host must not resolve to a private, loopback or link-local address (400 validation_failed, issue unsafe_url).',
      statuses: { 201: 'Endpoint created; secret is shown only here.' },
    }),
    endpoints.list('List webhook endpoints, newest first (never their secrets).', 'A page of endpoints.'),
    endpoints.get('Get one webhook endpoint (never its secret).', 'The endpoint.'),
    endpoints.route('webhook_endpoints.update', {
      operationId: 'updateWebhookEndpoint',
      method: 'PATCH',
      path: '/api/v1/webhook-endpoints/{id}',
      summary: 'Update a webhook endpoint: any of url, event_types, description (null clears it), metadata (merged; a key set to "" is removed) and enabled.',
      description:
        'Fields left out keep their value; at least one is required. A new url passes the same checks as on create (https in live mode; no private, loopback or link-local address: ' +
        '400 validation_failed, issue unsafe_url). `enabled: true` re-enables a disabled endpoint and starts its failure history afresh (the 3-day rule counts from its next failure); ' +
        'deliveries failed while it was disabled stay failed (retry them one by one). `enabled: false` disables it and fails its pending deliveries. The secret is never returned here.',
      statuses: { 200: 'The endpoint after the update.' },
    }),
    endpoints.route('webhook_endpoints.rotate_secret', {
      operationId: 'rotateWebhookEndpointSecret',
      method: 'POST',
      path: '/api/v1/webhook-endpoints/{id}/rotate-secret',
      summary: 'Replace the signing secret; the new one is in this response only.',
      description:
        'Until the current secret expires (expire_current_in_hours, 0–72, default 24) every delivery is signed with both: webhook-signature carries two space-separated v1 entries, ' +
        'the new secret first; Service-Signature uses the new secret only. 0 retires the current secret at once. Rotating again during an overlap keeps only the secret being ' +
        'replaced beside the new one: the one before it stops signing at once.',
      statuses: { 200: 'The endpoint with its new secret.' },
    }),
    endpoints.route('webhook_endpoints.retry_delivery', {
      operationId: 'retryWebhookDelivery',
      method: 'POST',
      path: '/api/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/retry',
      summary: 'One more attempt of a delivery, now (also for a failed or an already delivered one); the outcome shows in its attempts.',
      description:
        'The attempt is queued at once and sent by the delivery workers with the same delivery id and body. Success marks the delivery delivered; a failure leaves a failed or ' +
        'delivered one as it was, and a pending one keeps its retry schedule. A request while an attempt of the delivery is queued or in flight adds none (no second concurrent send). ' +
        'A disabled endpoint is refused with 409 conflict (re-enable it first); a delivery of another endpoint is 404.',
      statuses: { 202: 'The delivery, its attempt queued.' },
    }),
    endpoints.route('webhook_endpoints.delete', {
      operationId: 'deleteWebhookEndpoint',
      method: 'DELETE',
      path: '/api/v1/webhook-endpoints/{id}',
      summary: 'Delete a webhook endpoint: nothing more is delivered to it (pending deliveries are dropped).',
      statuses: { 200: '{id, deleted: true}.' },
    }),
    endpoints.route('webhook_endpoints.test', {
      operationId: 'testWebhookEndpoint',
      method: 'POST',
      path: '/api/v1/webhook-endpoints/{id}/test',
      summary: 'Send a webhook.test delivery to the endpoint (queued; see its deliveries for the outcome).',
      description: 'A disabled endpoint is refused with 409 conflict.',
      statuses: { 201: 'The queued delivery.' },
    }),
    endpoints.route('webhook_endpoints.deliveries', {
      operationId: 'listWebhookDeliveries',
      method: 'GET',
      path: '/api/v1/webhook-endpoints/{id}/deliveries',
      summary: "The endpoint's deliveries, newest first, each with its attempts (time, status code, duration, error, first 1 KiB of the response).",
      statuses: { 200: 'A page of deliveries.' },
    }),
  ],
});
