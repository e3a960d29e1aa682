import { type TrustedContext, limits, list, single } from '@acct/contracts';
import { type Orm, type RpcServer, cursorPage, listQuery, unknownCursor } from '@acct/kit';
import type { Resolver } from '../adapters/ssrf';
import type { WebhookConfig } from '../config';
import { createEndpoint, deleteEndpoint, mustFindEndpoint, retryDelivery, rotateSecret, testEndpoint, updateEndpoint } from '../flows/endpoints';
import { type EndpointScope, endpointDto, findEndpoint, listEndpoints } from '../queries/endpoints';
import { isDeliveryOf, listDeliveries } from '../queries/deliveries';

/** A page of deliveries (each with its attempts and their first 1 KiB of response) stops before this many bytes. */
const DELIVERY_PAGE_BYTES = 512 * 1024;

const scopeOf = (ctx: TrustedContext): EndpointScope => ({ organizationId: ctx.organizationId, connectedAppId: ctx.connectedAppId, environment: ctx.environment });

/** webhook_endpoints.*: endpoints of the caller's organization, connected app and environment. */
export function registerWebhookEndpointHandlers(server: RpcServer, orm: Orm, config: WebhookConfig, o: { resolve?: Resolver; onDeliveries?: () => void } = {}): void {
  server.handle('webhook_endpoints.create', async (req) => {
    const created = await createEndpoint(orm.em.fork(), scopeOf(req.ctx), req.body, { config, resolve: o.resolve });
    return { ok: true, status: 201, body: single('webhook_endpoint', created) };
  });

  server.handle('webhook_endpoints.list', async (req) => {
    const q = listQuery(req.query);
    const em = orm.em.fork();
    if (q.cursor && !(await findEndpoint(em, scopeOf(req.ctx), q.cursor.id))) throw unknownCursor(q.cursor);
    const rows = await listEndpoints(em, scopeOf(req.ctx), q);
    const { items, pagination } = cursorPage(rows.map(endpointDto), q, limits.list_page_bytes_max);
    return { ok: true, status: 200, body: list('webhook_endpoints', items, pagination) };
  });

  server.handle('webhook_endpoints.get', async (req) => {
    const ep = await mustFindEndpoint(orm.em.fork(), scopeOf(req.ctx), req.params.id);
    return { ok: true, status: 200, body: single('webhook_endpoint', endpointDto(ep)) };
  });

  server.handle('webhook_endpoints.update', async (req) => {
    const updated = await updateEndpoint(orm.em.fork(), scopeOf(req.ctx), req.params.id, req.body, { config, resolve: o.resolve });
    return { ok: true, status: 200, body: single('webhook_endpoint', updated) };
  });

  server.handle('webhook_endpoints.rotate_secret', async (req) => {
    const rotated = await rotateSecret(orm.em.fork(), scopeOf(req.ctx), req.params.id, req.body, { config });
    return { ok: true, status: 200, body: single('webhook_endpoint', rotated) };
  });

  server.handle('webhook_endpoints.retry_delivery', async (req) => {
    const delivery = await retryDelivery(orm.em.fork(), scopeOf(req.ctx), req.params.id, req.params.delivery_id);
    o.onDeliveries?.();
    return { ok: true, status: 202, body: single('webhook_delivery', delivery) };
  });

  server.handle('webhook_endpoints.delete', async (req) => {
    await deleteEndpoint(orm.em.fork(), scopeOf(req.ctx), req.params.id);
    return { ok: true, status: 200, body: single('webhook_endpoint', { id: req.params.id, deleted: true as const }) };
  });

  server.handle('webhook_endpoints.test', async (req) => {
    const delivery = await testEndpoint(orm.em.fork(), scopeOf(req.ctx), req.params.id);
    o.onDeliveries?.();
    return { ok: true, status: 201, body: single('webhook_delivery', delivery) };
  });

  server.handle('webhook_endpoints.deliveries', async (req) => {
    const em = orm.em.fork();
    const ep = await mustFindEndpoint(em, scopeOf(req.ctx), req.params.id);
    const q = listQuery(req.query);
    if (q.cursor && !(await isDeliveryOf(em, ep.id, q.cursor.id))) throw unknownCursor(q.cursor);
    const rows = await listDeliveries(em, ep.id, q);
    const { items, pagination } = cursorPage(rows, q, DELIVERY_PAGE_BYTES);
    return { ok: true, status: 200, body: list('webhook_deliveries', items, pagination) };
  });
}
