import type { EntitySchema } from '@mikro-orm/core';
import { AppError, type KeyedOperation, limits, list, pageWithin, single } from '@acct/contracts';
import type { Orm } from './db';
import type { RpcServer } from './rpc';
import { pageQuery, scopeOf, type ScopedRow } from './scope';
import { entityRows, getInScope, withQuery } from './sql';

/**
 * The read side every resource shares: a list (newest first, ties by id, limit + 1 for has_more,
 * optional equality and range filters from the query) and a get by id, both scoped by organization and
 * environment. One path each (docs/data-access.md): the list through MikroORM, the get by id on pg
 * directly, so the entity must be flat (entityRows); registering one that is not throws at start.
 */
export function registerReads<E extends object>(
  server: RpcServer,
  orm: Orm,
  r: {
    list: KeyedOperation;
    get: KeyedOperation;
    schema: EntitySchema<E, never>;
    name: string;
    plural: string;
    label: string;
    dto: (e: E) => unknown;
    /** query parameter → entity property */
    filters?: Record<string, keyof E & string>;
    /** query parameter → bound on an entity property (e.g. issue_date_from → issueDate ≥ value) */
    ranges?: Record<string, { prop: keyof E & string; op: '$gte' | '$lte' }>;
  },
): void {
  server.handle(r.list, async (req) => {
    const { limit, offset } = pageQuery(req.query);
    const where: Record<string, unknown> = { ...scopeOf(req.ctx) };
    for (const [param, prop] of Object.entries(r.filters ?? {})) {
      if (req.query[param] !== undefined) where[prop] = req.query[param];
    }
    for (const [param, { prop, op }] of Object.entries(r.ranges ?? {})) {
      if (req.query[param] === undefined) continue;
      const bounds = (where[prop] ?? {}) as Record<string, unknown>;
      where[prop] = { ...bounds, [op]: req.query[param] };
    }
    const rows = await orm.em.fork().find(r.schema, where as never, {
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] as never,
      limit: limit + 1,
      offset,
    });
    const p = pageWithin((rows as E[]).map(r.dto), limit, offset, limits.list_page_bytes_max);
    return { ok: true, status: 200, body: list(r.plural, p.items, p.pagination) };
  });

  // Named statement, no hydration: a measured hot path (bench get-customer; about 0.15 ms of CPU
  // per get against 0.6 ms through em.fork().findOne).
  const rows = entityRows(orm, r.schema as never as EntitySchema<ScopedRow, never>);
  server.handle(r.get, async (req) => {
    const row = await withQuery(orm, (q) => getInScope(q, rows, String(req.params.id), scopeOf(req.ctx)));
    if (!row) throw AppError.notFound(r.label, req.params.id);
    return { ok: true, status: 200, body: single(r.name, r.dto(row as E)) };
  });
}
