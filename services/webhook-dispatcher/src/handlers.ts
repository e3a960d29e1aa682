import { randomUUID } from 'node:crypto';
import { AppError, WEBHOOK_EVENT_TYPES, list, page, pageWithin, single } from '@acct/contracts';
import { type Orm, type RpcServer, encryptSecret, pageQuery } from '@acct/kit';
import type { WebhookConfig } from './config';
import { newSecret } from './domain/secrets';
import {
  type EndpointRow,
  type EndpointScope,
  deleteEndpoint,
  endpointDto,
  findEndpoint,
  getDelivery,
  queueTestDelivery,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
} from './queries';
import { type Resolver, checkUrl } from './ssrf';

export function registerHandlers(server: RpcServer, orm: Orm, config: WebhookConfig, o: { resolve?: Resolver; onDeliveries?: () => void } = {}): void {
  const scope = (ctx: { organizationId: string; connectedAppId: string; environment: 'test' | 'live' }): EndpointScope => ({
    organizationId: ctx.organizationId,
    connectedAppId: ctx.connectedAppId,
    environment: ctx.environment,
  });
  const mustFind = async (s: EndpointScope, id: string): Promise<EndpointRow> => {
    const ep = await findEndpoint(orm.em.fork(), s, id);
    if (!ep) throw AppError.notFound('Webhook endpoint', id);
    return ep;
  };

  server.handle('webhook_endpoints.create', async (req) => {
    const { url, event_types, description } = req.body;
    // The URL is stored, returned and sent to as normalised (new URL(url).href), the form the rule checked.
    const checked = await checkUrl(url, { environment: req.ctx.environment, allowPrivate: config.allowPrivateUrls, resolve: o.resolve });
    if (!checked.ok) throw AppError.validation(`The endpoint URL ${checked.problem}.`, [{ field: '/url', issue: 'unsafe_url', message: `The URL ${checked.problem}.` }]);
    const id = randomUUID();
    const secret = newSecret();
    const row: EndpointRow = {
      id,
      organization_id: req.ctx.organizationId,
      connected_app_id: req.ctx.connectedAppId,
      environment: req.ctx.environment,
      url: checked.href,
      description: description ?? null,
      event_types: event_types ?? [...WEBHOOK_EVENT_TYPES],
      status: 'enabled',
      disabled_reason: null,
      secret_encrypted: encryptSecret(config.secretKey, id, secret),
      created_at: new Date(),
    };
    await insertEndpoint(orm.em.fork(), row);
    return { ok: true, status: 201, body: single('webhook_endpoint', { ...endpointDto(row), secret }) };
  });

  server.handle('webhook_endpoints.list', async (req) => {
    const { limit, offset } = pageQuery(req.query);
    const rows = await listEndpoints(orm.em.fork(), scope(req.ctx), limit + 1, offset);
    const { items, pagination } = page(rows.map(endpointDto), limit, offset);
    return { ok: true, status: 200, body: list('webhook_endpoints', items, pagination) };
  });

  server.handle('webhook_endpoints.get', async (req) => {
    const ep = await mustFind(scope(req.ctx), req.params.id);
    return { ok: true, status: 200, body: single('webhook_endpoint', endpointDto(ep)) };
  });

  server.handle('webhook_endpoints.delete', async (req) => {
    const deleted = await orm.em.fork().transactional((em) => deleteEndpoint(em, scope(req.ctx), req.params.id));
    if (!deleted) throw AppError.notFound('Webhook endpoint', req.params.id);
    return { ok: true, status: 200, body: single('webhook_endpoint', { id: req.params.id, deleted: true as const }) };
  });

  server.handle('webhook_endpoints.test', async (req) => {
    const ep = await mustFind(scope(req.ctx), req.params.id);
    if (ep.status !== 'enabled') throw AppError.conflict(`Webhook endpoint ${ep.id} is disabled.`);
    const em = orm.em.fork();
    const id = await queueTestDelivery(em, ep);
    o.onDeliveries?.();
    return { ok: true, status: 201, body: single('webhook_delivery', (await getDelivery(em, id))!) };
  });

  server.handle('webhook_endpoints.deliveries', async (req) => {
    const ep = await mustFind(scope(req.ctx), req.params.id);
    const { limit, offset } = pageQuery(req.query);
    const rows = await listDeliveries(orm.em.fork(), ep.id, limit + 1, offset);
    const { items, pagination } = pageWithin(rows, limit, offset, 512 * 1024);
    return { ok: true, status: 200, body: list('webhook_deliveries', items, pagination) };
  });
}
