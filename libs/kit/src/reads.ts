import { type EntitySchema, raw } from '@mikro-orm/core';
import DataLoader from 'dataloader';
import { AppError, type KeyedOperation, labelOf, limits, list, pluralOf, single } from '@acct/contracts';
import type { Orm } from './db';
import { cursorPage, keysetOp, listQuery, readOrder, unknownCursor } from './lists';
import type { RpcServer } from './rpc';
import { inScope, type Scope, scopeOf, type ScopedRow } from './scope';
import { type EntityRows, entityRows, listKeyInScope, withQuery } from './sql';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The most ids one statement reads; more wait for the next. */
export const GETS_PER_STATEMENT = 100;

type Row = Record<string, unknown>;

/** A resource whose operations include a list and a get by id (`<resource>.list`, `<resource>.get`). */
type ReadResource = { [K in KeyedOperation]: K extends `${infer R}.list` ? (`${R}.get` extends KeyedOperation ? R : never) : never }[KeyedOperation];

/**
 * The get by id: gets that arrive in the same turn of the event loop (one read of the bus's socket
 * often carries several requests) are read by one statement, `id = ANY(?)`, on one connection of
 * the pool (a DataLoader batch): one round trip, one parse of a row description and one statement
 * for Postgres, where each get alone makes its own. The statement runs once the turn's requests are
 * in (setImmediate), so a get waits for no timer; nothing is cached (a fresh statement outside any
 * transaction per batch), so every write committed before the request was sent is in it
 * (read-your-writes). The scope is checked on each row, as by getInScope: a row of another scope is
 * not found. A failed statement fails every get it carried, as each would have failed alone.
 */
export class BatchedGets<E extends ScopedRow> {
  private readonly loader: DataLoader<string, Row | undefined>;
  private readonly uuidKeys: boolean;

  constructor(
    orm: Orm,
    private readonly rows: EntityRows<E>,
  ) {
    this.uuidKeys = rows.idType === 'uuid';
    this.loader = new DataLoader((keys) => this.read(orm, keys), { cache: false, maxBatchSize: GETS_PER_STATEMENT, batchScheduleFn: (run) => setImmediate(run) });
  }

  /** The row of the scope with this id, or null. */
  async get(id: string, scope: Scope): Promise<E | null> {
    // Not a key the column can hold: no row has it (and it must not fail the statement it would share).
    if (this.uuidKeys && !UUID.test(id)) return null;
    const row = await this.loader.load(this.uuidKeys ? id.toLowerCase() : id);
    if (!row) return null;
    const e = this.rows.read(row);
    return inScope(e, scope) ? e : null;
  }

  private async read(orm: Orm, keys: readonly string[]): Promise<Array<Row | undefined>> {
    const ids = [...new Set(keys)];
    // One id alone (a quiet service): the by-id statement. Postgres plans `id = ANY(?)` at every
    // run (a plan costed on the array given always looks cheaper than the generic one, so it never
    // keeps one), which costs more per get than the by-id statement's generic plan at 1 client
    // (docs/performance.md); shared by several gets, that planning is worth its round trips.
    const found = await withQuery(orm, (q) => (ids.length === 1 ? q(this.rows.byId, ids) : q(this.rows.byIds, [ids])));
    const byKey = new Map<string, Row>();
    for (const row of found) byKey.set(this.uuidKeys ? String(row.id).toLowerCase() : String(row.id), row);
    return keys.map((k) => byKey.get(k));
  }
}

/**
 * The read side every resource shares: a list (newest first, ties by id, limit + 1 for has_more,
 * optional equality and range filters from the query, `created[…]` bounds, offset or a keyset cursor:
 * `(created_at, id) < (cursor's)` for starting_after, `>` read oldest first and turned back for
 * ending_before, both on the (organization_id, environment, created_at DESC, id DESC) list index) and
 * a get by id, both scoped by organization and environment. One path each (docs/data-access.md): the list through MikroORM, the get by id on pg
 * directly, so the entity must be flat (entityRows); registering one that is not throws at start.
 * The operations are the `resource`'s list and get; the envelope members the record's `name` and its
 * plural (pluralOf); a get of no record is 404 naming it (labelOf).
 */
export function registerReads<E extends object>(
  server: RpcServer,
  orm: Orm,
  resource: ReadResource,
  r: {
    schema: EntitySchema<E, never>;
    name: string;
    dto: (e: E) => unknown;
    /** query parameter → entity property */
    filters?: Record<string, keyof E & string>;
    /** query parameter → bound on an entity property (e.g. issue_date_from → issueDate ≥ value) */
    ranges?: Record<string, { prop: keyof E & string; op: '$gte' | '$lte' }>;
  },
): void {
  const rows = entityRows(orm, r.schema as never as EntitySchema<ScopedRow, never>);
  const lookup = lookupOf(r.schema);
  server.handle(`${resource}.list`, async (req) => {
    const q = listQuery(req.query);
    const scope = scopeOf(req.ctx);
    const where: Record<string, unknown> = { ...scope };
    for (const [param, prop] of Object.entries(r.filters ?? {})) {
      if (req.query[param] !== undefined) where[prop] = req.query[param];
    }
    if (lookup && req.query[lookup.param] !== undefined) where[lookup.prop] = req.query[lookup.param];
    for (const [param, { prop, op }] of Object.entries(r.ranges ?? {})) {
      if (req.query[param] === undefined) continue;
      const bounds = (where[prop] ?? {}) as Record<string, unknown>;
      where[prop] = { ...bounds, [op]: req.query[param] };
    }
    const key = q.cursor ? await withQuery(orm, (run) => listKeyInScope(run, rows, q.cursor!.id, scope)) : null;
    if (q.cursor && !key) throw unknownCursor(q.cursor);
    // Raw fragments last, right before the query that consumes them (MikroORM keeps each in a registry until used).
    for (const b of q.created) where[String(raw(`created_at ${b.op} ?::timestamptz`, [b.at]))] = [];
    // A row comparison, so Postgres seeks the list index to the cursor (an OR of two comparisons would filter from the top).
    if (q.cursor && key) where[String(raw(`(created_at, id) ${keysetOp(q.cursor)} (?::timestamptz, ?::uuid)`, [key.at, key.id]))] = [];
    const dir = readOrder(q.cursor);
    const found = await orm.em.fork().find(r.schema, where as never, {
      orderBy: [{ createdAt: dir }, { id: dir }] as never,
      limit: q.limit + 1,
      offset: q.offset,
    });
    const p = cursorPage((found as E[]).map(r.dto), q, limits.list_page_bytes_max);
    return { ok: true, status: 200, body: list(pluralOf(r.name), p.items, p.pagination) };
  });

  // Named statement, no hydration: a measured hot path (docs/performance.md), and the gets of one
  // turn share it.
  const gets = new BatchedGets(orm, rows);
  server.handle(`${resource}.get`, async (req) => {
    const row = await gets.get(String(req.params.id), scopeOf(req.ctx));
    if (!row) throw AppError.notFound(labelOf(r.name), req.params.id);
    return { ok: true, status: 200, body: single(r.name, r.dto(row as E)) };
  });
}

/**
 * The external-id lookup of a resource (API-DECISIONS §11): its one `external…Id` property, filtered
 * on exactly by the query parameter of the same name in snake case (externalCustomerId →
 * external_customer_id), on the (organization_id, environment, external id) unique index.
 */
export function lookupOf<E extends object>(schema: EntitySchema<E, never>): { prop: string; param: string } | null {
  const props = Object.keys((schema.meta.properties ?? {}) as object).filter((p) => /^external[A-Z][A-Za-z]*Id$/.test(p));
  if (props.length !== 1) return null;
  const prop = props[0]!;
  return { prop, param: prop.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) };
}
