import { randomUUID } from 'node:crypto';
import { AppError, type RpcBodyOf, WEBHOOK_EVENT_TYPES, type WebhookDeliveryDto, type WebhookEndpointDto } from '@acct/contracts';
import { type EntityManager, encryptSecret } from '@acct/kit';
import { type Resolver, checkUrl } from '../adapters/ssrf';
import type { WebhookConfig } from '../config';
import { deliveryBody } from '../domain/body';
import { newSecret } from '../domain/secrets';
import { type EndpointRow, type EndpointScope, endpointDto, failPendingDeliveries, findEndpoint, getDelivery, hideEndpoint, insertDelivery, insertEndpoint } from '../queries';

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
  const checked = await checkUrl(input.url, { environment: s.environment, allowPrivate: o.config.allowPrivateUrls, resolve: o.resolve });
  if (!checked.ok) throw AppError.validation(`The endpoint URL ${checked.problem}.`, [{ field: '/url', issue: 'unsafe_url', message: `The URL ${checked.problem}.` }]);
  const id = randomUUID();
  const secret = newSecret();
  const row: EndpointRow = {
    id,
    organization_id: s.organizationId,
    connected_app_id: s.connectedAppId,
    environment: s.environment,
    url: checked.href,
    description: input.description ?? null,
    event_types: input.event_types ?? [...WEBHOOK_EVENT_TYPES],
    status: 'enabled',
    disabled_reason: null,
    secret_encrypted: encryptSecret(o.config.secretKey, id, secret),
    created_at: new Date(),
  };
  await insertEndpoint(em, row);
  return { ...endpointDto(row), secret };
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
