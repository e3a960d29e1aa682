import { type EntityMetadata, type EntitySchema, ReferenceKind } from '@mikro-orm/core';
import type { EntityManager, Orm } from './db';
import { positional } from './placeholders';
import { inScope, type Scope, type ScopedRow } from './scope';

export { positional } from './placeholders';

/**
 * Named statements on pg directly, for the measured hot paths only (docs/data-access.md); MikroORM
 * and `em.execute` for the rest. A statement is parsed and planned once per connection (pg names it)
 * on a connection of MikroORM's own pool (its type parsers and search_path), or on the connection of
 * the transaction an EntityManager runs in. Rows are read and written with the entity's metadata,
 * so they look exactly as MikroORM's would. Every statement is written with `?`, as all SQL here is.
 */

/** A named statement, made by statement(): pg's text, `$1..$n` numbered from its `?`. */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

const defined = new Map<string, { sql: string; statement: Statement }>();

/**
 * A named statement from SQL with `?` placeholders, numbered once here. One name, one text (pg
 * refuses a second text under a name a connection has prepared): defining a name again with the
 * same SQL returns the first definition, with other SQL throws.
 */
export function statement(name: string, sql: string): Statement {
  const seen = defined.get(name);
  if (seen) {
    if (seen.sql !== sql) throw new Error(`statement ${name} is already defined with other SQL`);
    return seen.statement;
  }
  const s: Statement = Object.freeze({ name, text: positional(sql) });
  defined.set(name, { sql, statement: s });
  return s;
}

/** Runs a named statement on one connection and returns its rows. */
export type Query = <R = Record<string, unknown>>(s: Statement, values: readonly unknown[]) => Promise<R[]>;

/** The pg Client knex's pool hands out (only the query config form is used). */
interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

interface KnexClient {
  acquireConnection(): Promise<PgClient>;
  releaseConnection(conn: PgClient): Promise<unknown>;
}

const queryOn =
  (conn: PgClient): Query =>
  async <R>(s: Statement, values: readonly unknown[]) =>
    (await conn.query({ name: s.name, text: s.text, values: values as unknown[] })).rows as R[];

function poolOf(ormOrEm: Orm | EntityManager): KnexClient {
  const em = 'em' in ormOrEm ? ormOrEm.em : ormOrEm;
  return (em.getConnection().getKnex() as unknown as { client: KnexClient }).client;
}

/**
 * Runs `fn` on a connection of the ORM's pool (no transaction: each statement commits). Given an
 * EntityManager, on its pool too, never in its transaction: transactionQuery is for that.
 */
export async function withQuery<T>(ormOrEm: Orm | EntityManager, fn: (q: Query) => Promise<T>): Promise<T> {
  const pool = poolOf(ormOrEm);
  const conn = await pool.acquireConnection();
  try {
    return await fn(queryOn(conn));
  } finally {
    await pool.releaseConnection(conn);
  }
}

/** Statements on the connection of the transaction `em` runs in (inside em.transactional()). */
export async function transactionQuery(em: EntityManager): Promise<Query> {
  const trx = em.getTransactionContext<{ client?: KnexClient }>();
  if (!trx?.client) throw new Error('transactionQuery: the EntityManager is not in a transaction');
  return queryOn(await trx.client.acquireConnection());
}

/** How one entity's rows are read and written on pg directly. */
export interface EntityRows<E> {
  readonly table: string;
  /** The entity's columns, comma separated, for a SELECT list. */
  readonly columns: string;
  /** A row as the driver returns it (MikroORM's pool: dates and timestamps as text) → the entity. */
  read(row: Record<string, unknown>): E;
  /** INSERT of one entity, every column. */
  readonly insert: Statement;
  /** The insert's values for `e`, in column order. */
  values(e: E): unknown[];
  /**
   * Many rows as one row source, for a set-based INSERT … SELECT of one fixed text whatever their
   * number: `unnest(?::<type>[], …) AS <alias> (<columns>)`, one array parameter per column, whose
   * values `arrays` gives. The column list `columns` follows, in that order.
   */
  unnest(alias: string): string;
  /** The parameters of `unnest` for `es`: per column, the values of every entity (as `values` gives them). */
  arrays(es: readonly E[]): unknown[][];
  /** SELECT every column by primary key (`FOR UPDATE` when locking). */
  readonly byId: Statement;
  /** SELECT every column of the rows whose primary key is in one array parameter (`id = ANY(?)`). */
  readonly byIds: Statement;
  /** The primary key's Postgres type (uuid, text, …). */
  readonly idType: string;
  readonly lockById: Statement;
}

interface Column {
  prop: string;
  field: string;
  /** Its Postgres type, as the migrations declare it (uuid, text, jsonb, …). */
  type: string;
  toJs: (v: unknown) => unknown;
  toDb: (v: unknown) => unknown;
}

const rowsCache = new WeakMap<object, Map<string, EntityRows<unknown>>>();

/**
 * Row mapping of a flat entity (scalar properties only, one column each, primary key `id`); throws
 * for any other shape, which stays on MikroORM.
 */
export function entityRows<E extends object>(ormOrEm: Orm | EntityManager, schema: EntitySchema<E, never>): EntityRows<E> {
  const storage = ormOrEm.getMetadata();
  let byOrm = rowsCache.get(storage);
  if (!byOrm) rowsCache.set(storage, (byOrm = new Map<string, EntityRows<unknown>>()));
  const name = schema.meta.className;
  const cached = byOrm.get(name);
  if (cached) return cached as EntityRows<E>;
  const meta: EntityMetadata = storage.get(name);
  const platform = 'em' in ormOrEm ? ormOrEm.em.getPlatform() : ormOrEm.getPlatform();
  if (meta.primaryKeys.length !== 1 || meta.primaryKeys[0] !== 'id') throw new Error(`entityRows: ${name} is not keyed by id`);
  const cols: Column[] = meta.props
    .filter((p) => p.persist !== false)
    .map((p) => {
      if (p.kind !== ReferenceKind.SCALAR || p.fieldNames.length !== 1) throw new Error(`entityRows: ${name}.${p.name} is not a plain column`);
      const t = p.customType;
      const isDate = p.runtimeType === 'Date';
      const type = String(p.columnTypes?.[0]);
      return {
        prop: p.name,
        field: p.fieldNames[0]!,
        type,
        toJs: t ? (v): unknown => t.convertToJSValue(v, platform) : isDate ? (v) => (v instanceof Date ? v : new Date(v as string)) : (v) => v,
        toDb: t ? (v): unknown => t.convertToDatabaseValue(v, platform) : (v) => v,
      };
    });
  const table = meta.tableName;
  const idType = cols.find((c) => c.prop === 'id')!.type;
  const columns = cols.map((c) => c.field).join(', ');
  const rows: EntityRows<E> = {
    table,
    columns,
    read(row) {
      const e: Record<string, unknown> = {};
      for (const c of cols) {
        const v = row[c.field];
        e[c.prop] = v === null || v === undefined ? null : c.toJs(v);
      }
      return e as E;
    },
    // Named per table (not statement(): two ORMs in one process may each have a table of that name).
    insert: { name: `ins_${table}`, text: positional(`INSERT INTO ${table} (${columns}) VALUES (${cols.map(() => '?').join(', ')})`) },
    values(e) {
      const r = e as Record<string, unknown>;
      return cols.map((c) => {
        const v = r[c.prop];
        return v === null || v === undefined ? null : c.toDb(v);
      });
    },
    unnest(alias) {
      const odd = cols.find((c) => !/^[a-z][a-z0-9 ]*(\(\d+(, *\d+)?\))?$/.test(c.type));
      if (odd) throw new Error(`entityRows: ${name}.${odd.prop} has no plain column type for unnest (${odd.type})`);
      return `unnest(${cols.map((c) => `?::${c.type}[]`).join(', ')}) AS ${alias} (${columns})`;
    },
    arrays(es) {
      const out = cols.map(() => new Array<unknown>(es.length));
      es.forEach((e, j) => rows.values(e).forEach((v, i) => (out[i]![j] = v)));
      return out;
    },
    byId: { name: `get_${table}`, text: positional(`SELECT ${columns} FROM ${table} WHERE id = ?`) },
    byIds: { name: `gets_${table}`, text: positional(`SELECT ${columns} FROM ${table} WHERE id = ANY(?::${idType}[])`) },
    idType,
    lockById: { name: `lock_${table}`, text: positional(`SELECT ${columns} FROM ${table} WHERE id = ? FOR UPDATE`) },
  };
  byOrm.set(name, rows);
  return rows;
}

/** A row of the scope by primary key on pg directly, or null (the scope checked on the row: see findInScope). */
export async function getInScope<E extends ScopedRow>(q: Query, rows: EntityRows<E>, id: string, scope: Scope, opts: { lock?: boolean } = {}): Promise<E | null> {
  const [row] = await q(opts.lock ? rows.lockById : rows.byId, [id]);
  if (!row) return null;
  const e = rows.read(row);
  return inScope(e, scope) ? e : null;
}

/**
 * The list key of a row of the scope (its creation time as Postgres holds it, full precision, and its
 * id), for a keyset page after or before it; null when the id is not a row of the scope.
 */
export async function listKeyInScope<E extends ScopedRow>(
  q: Query,
  rows: EntityRows<E>,
  id: string,
  scope: Scope,
  timeColumn = 'created_at',
): Promise<{ at: string; id: string } | null> {
  const [row] = await q(rows.byId, [id]);
  if (!row || !inScope(rows.read(row), scope)) return null;
  const at = row[timeColumn];
  return { at: at instanceof Date ? at.toISOString() : String(at), id: String(row.id) };
}

const parentInserts = new WeakMap<EntityRows<unknown>, Map<string, Statement>>();

/**
 * Inserts one entity of a scope only if `parent.id` is a row of `parent.table` in the same scope, in
 * one named statement (`name`): the parent's check rides in the INSERT (`INSERT … SELECT … WHERE
 * EXISTS`), so a create makes one round trip. True when stored; false, with nothing stored, when the
 * parent is not one of the scope. A unique violation (an external id already taken) fails the
 * statement as a plain INSERT would.
 */
export async function insertInScopeOf<E extends ScopedRow>(q: Query, rows: EntityRows<E>, e: E, parent: { table: string; id: string }, name: string): Promise<boolean> {
  let byName = parentInserts.get(rows);
  if (!byName) parentInserts.set(rows, (byName = new Map<string, Statement>()));
  const values = rows.values(e);
  let s = byName.get(name);
  if (!s) {
    s = statement(
      name,
      `INSERT INTO ${rows.table} (${rows.columns}) SELECT ${values.map(() => '?').join(', ')}
       WHERE EXISTS (SELECT 1 FROM ${parent.table} WHERE id = ? AND organization_id = ? AND environment = ?) RETURNING id`,
    );
    byName.set(name, s);
  }
  const stored = await q(s, [...values, parent.id, e.organizationId, e.environment]);
  return stored.length === 1;
}

/**
 * Inserts one entity on pg directly (entityRows' columns and values), in em's transaction if it has
 * one. For entities that hold caller-chosen JSON keys (metadata): MikroORM's em.insert walks every
 * value as a query parameter and throws on an object with an own "constructor" key.
 */
export async function insertEntity<E extends object>(em: EntityManager, schema: EntitySchema<E, never>, e: E): Promise<void> {
  const rows = entityRows(em, schema);
  const values = rows.values(e);
  await em.execute(`INSERT INTO ${rows.table} (${rows.columns}) VALUES (${values.map(() => '?').join(', ')})`, values, 'run');
}
