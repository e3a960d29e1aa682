import { randomUUID } from 'node:crypto';
import {
  AppError,
  type RpcBodyOf,
  WEBHOOK_DEFAULT_EVENT_TYPES,
  WEBHOOK_SECRET_OVERLAP_HOURS_DEFAULT,
  type WebhookDeliveryDto,
  type WebhookEndpointDto,
  metadataOnCreate,
  patchedMetadata,
} from '@acct/contracts';
import { type EntityManager, encryptSecret } from '@acct/kit';
import { type Resolver, checkUrl } from '../adapters/ssrf';
import type { WebhookConfig } from '../config';
import { deliveryBody } from '../domain/body';
import { newSecret } from '../domain/secrets';
import {
  type EndpointRow,
  type EndpointScope,
  endpointDto,
  failPendingDeliveries,
  findEndpoint,
  hideEndpoint,
  insertEndpoint,
  lockEndpoint,
  rotateEndpointSecret,
  updateEndpointFields,
} from '../queries/endpoints';
import { getDelivery, insertDelivery, queueManualAttempt } from '../queries/deliveries';

/** An endpoint of the scope, or not_found. */
export async function mustFindEndpoint(em: EntityManager, s: EndpointScope, id: string): Promise<EndpointRow> {
  const ep = await findEndpoint(em, s, id);
  if (!ep) throw AppError.notFound('Webhook endpoint', id);
  return ep;
}

/**
 * A new endpoint with a fresh signing secret (shown only in this reply, stored encrypted and bound to
 * the endpoint id). The URL is stored, returned and sent to as normalised (new URL(url).href), the
 * form the SSRF rule checked.
 */
export async function createEndpoint(
  em: EntityManager,
  s: EndpointScope,
  input: RpcBodyOf<'webhook_endpoints.create'>,
  o: { config: WebhookConfig; resolve?: Resolver },
): Promise<WebhookEndpointDto & { secret: string }> {
  const href = await safeUrl(input.url, s, o);
  const id = randomUUID();
  const secret = newSecret();
  const row: EndpointRow = {
    id,
    organization_id: s.organizationId,
    connected_app_id: s.connectedAppId,
    environment: s.environment,
    url: href,
    description: input.description ?? null,
    event_types: input.event_types ?? [...WEBHOOK_DEFAULT_EVENT_TYPES],
    status: 'enabled',
    disabled_reason: null,
    secret_encrypted: encryptSecret(o.config.secretKey, id, secret),
    previous_secret_encrypted: null,
    previous_secret_expires_at: null,
    metadata: metadataOnCreate(input.metadata),
    created_at: new Date(),
  };
  await insertEndpoint(em, row);
  return { ...endpointDto(row), secret };
}

/** The URL as stored and sent to (normalised), when the SSRF rule and the mode's scheme rule let it through (create and PATCH alike); else 400 on /url. */
async function safeUrl(url: string, s: EndpointScope, o: { config: WebhookConfig; resolve?: Resolver }): Promise<string> {
  const checked = await checkUrl(url, { environment: s.environment, allowPrivate: o.config.allowPrivateUrls, resolve: o.resolve });
  if (!checked.ok) throw AppError.validation(`The endpoint URL ${checked.problem}.`, [{ field: '/url', issue: 'unsafe_url', message: `The URL ${checked.problem}.` }]);
  return checked.href;
}

/** Why an endpoint disabled through the API is disabled. */
const DISABLED_BY_REQUEST = 'Disabled through the API (PATCH enabled: false).';

/**
 * PATCH /webhook-endpoints/{id}: the given fields replace the stored ones (metadata merges, a key set
 * to "" removed). A new URL passes the create checks first (outside the transaction: they resolve
 * names). `enabled: true` on a disabled endpoint enables it with its failure history cleared (the
 * 3-day rule counts from its next failure, as for a new endpoint); `enabled: false` on an enabled one
 * disables it and fails its pending deliveries, as the automatic rule does.
 */
export async function updateEndpoint(
  em: EntityManager,
  s: EndpointScope,
  id: string,
  input: RpcBodyOf<'webhook_endpoints.update'>,
  o: { config: WebhookConfig; resolve?: Resolver },
): Promise<WebhookEndpointDto> {
  await mustFindEndpoint(em, s, id);
  const href = input.url === undefined ? undefined : await safeUrl(input.url, s, o);
  const row = await em.transactional(async (tx) => {
    const ep = await lockEndpoint(tx, s, id, 'UPDATE');
    if (!ep) throw AppError.notFound('Webhook endpoint', id);
    const metadata = patchedMetadata(ep.metadata ?? {}, input.metadata);
    const enable = input.enabled === true && ep.status === 'disabled';
    const disable = input.enabled === false && ep.status === 'enabled';
    const updated = await updateEndpointFields(tx, id, {
      url: href ?? ep.url,
      event_types: input.event_types ?? ep.event_types,
      description: input.description === undefined ? ep.description : input.description,
      metadata,
      status: enable ? 'enabled' : disable ? 'disabled' : ep.status,
      disabled_reason: enable ? null : disable ? DISABLED_BY_REQUEST : ep.disabled_reason,
      resetFailing: enable,
    });
    if (disable) await failPendingDeliveries(tx, id);
    return updated;
  });
  return endpointDto(row);
}

/**
 * POST /webhook-endpoints/{id}/rotate-secret: a new secret (shown only in this reply), stored
 * encrypted and bound to the endpoint id like the first. The secret it replaces keeps signing beside
 * it for `expire_current_in_hours` (default 24; 0: it stops now); one kept from an earlier rotation
 * stops now, so at most two secrets sign a delivery. A disabled endpoint may rotate too.
 */
export async function rotateSecret(
  em: EntityManager,
  s: EndpointScope,
  id: string,
  input: RpcBodyOf<'webhook_endpoints.rotate_secret'> | undefined,
  o: { config: WebhookConfig },
): Promise<WebhookEndpointDto & { secret: string }> {
  const hours = input?.expire_current_in_hours ?? WEBHOOK_SECRET_OVERLAP_HOURS_DEFAULT;
  const secret = newSecret();
  const row = await em.transactional(async (tx) => {
    if (!(await lockEndpoint(tx, s, id, 'UPDATE'))) throw AppError.notFound('Webhook endpoint', id);
    return rotateEndpointSecret(tx, id, encryptSecret(o.config.secretKey, id, secret), hours);
  });
  return { ...endpointDto(row), secret };
}

/**
 * POST /webhook-endpoints/{id}/deliveries/{delivery_id}/retry: one more attempt now, whatever the
 * delivery's status (see queueManualAttempt; none is added while one is queued or in flight).
 * not_found for a delivery of another endpoint; conflict while the endpoint is disabled (the
 * endpoint row is held FOR SHARE, so it cannot be disabled between the check and the queueing).
 */
export async function retryDelivery(em: EntityManager, s: EndpointScope, id: string, deliveryId: string): Promise<WebhookDeliveryDto> {
  await em.transactional(async (tx) => {
    const ep = await lockEndpoint(tx, s, id, 'SHARE');
    if (!ep) throw AppError.notFound('Webhook endpoint', id);
    if (!(await queueManualAttempt(tx, ep.id, deliveryId))) throw AppError.notFound('Webhook delivery', deliveryId);
    if (ep.status !== 'enabled') throw AppError.conflict(`Webhook endpoint ${ep.id} is disabled: re-enable it (PATCH enabled: true) before retrying its deliveries.`);
  });
  return (await getDelivery(em, deliveryId))!;
}

/** Deletes (hides) an endpoint of the scope and fails its pending deliveries, in one transaction; not_found when it is not there. */
export async function deleteEndpoint(em: EntityManager, s: EndpointScope, id: string): Promise<void> {
  const deleted = await em.transactional(async (tx) => {
    if (!(await findEndpoint(tx, s, id))) return false;
    if (!(await hideEndpoint(tx, id))) return false;
    await failPendingDeliveries(tx, id);
    return true;
  });
  if (!deleted) throw AppError.notFound('Webhook endpoint', id);
}

/** A webhook.test delivery to an enabled endpoint of the scope (the test action); conflict when it is disabled. */
export async function testEndpoint(em: EntityManager, s: EndpointScope, id: string): Promise<WebhookDeliveryDto> {
  const ep = await mustFindEndpoint(em, s, id);
  if (ep.status !== 'enabled') throw AppError.conflict(`Webhook endpoint ${ep.id} is disabled.`);
  return queueTestDelivery(em, ep);
}

/** Queues a webhook.test delivery to the endpoint (the test action and `admin webhooks test`) and returns it. */
export async function queueTestDelivery(em: EntityManager, ep: EndpointRow): Promise<WebhookDeliveryDto> {
  const id = randomUUID();
  const body = deliveryBody(id, {
    type: 'webhook.test',
    created_at: new Date().toISOString(),
    organization_id: ep.organization_id,
    connected_app_id: ep.connected_app_id,
    environment: ep.environment,
    data: { endpoint_id: ep.id },
  });
  await insertDelivery(em, { id, endpointId: ep.id, eventId: randomUUID(), eventType: 'webhook.test', body, createdAt: new Date() });
  return (await getDelivery(em, id))!;
}
