import { Client } from 'pg';
import { MikroORM, type EntitySchema, type Constructor } from '@mikro-orm/core';
import { PostgreSqlDriver, type EntityManager } from '@mikro-orm/postgresql';
import { Migrator, Migration as MigrationBase, type Migration } from '@mikro-orm/migrations';
import pino from 'pino';
import { driverMessage, type Logger } from './logger';
import { positional } from './placeholders';

export type Orm = MikroORM<PostgreSqlDriver>;
export type { EntityManager };

export interface MigrationDef {
  name: string;
  class: Constructor<Migration>;
}

/**
 * A service's own versions, each named by its class: Migration<14 digits><Name>, as its file (the
 * name is what the migrations table records, so a class is never renamed once merged).
 */
export function versionsOf(...classes: Constructor<Migration>[]): MigrationDef[] {
  return classes.map((c) => ({ name: c.name, class: c }));
}

export interface DbOptions {
  url: string;
  /** The one Postgres schema this service owns. */
  schema: string;
  entities: EntitySchema[];
  migrations: MigrationDef[];
  poolMax?: number;
  /** Where the driver's own warnings go (JSON on stderr when not given). */
  log?: Logger;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The raw pg connection knex's pool hands to afterCreate (only callback-style query is used). */
interface PgConnection {
  query(sql: string, callback: (err: Error | null) => void): void;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, '')) || 'postgres';
}

async function withAdminClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: withDatabase(url, 'postgres') });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Creates the database of `url` if it does not exist (safe when several processes race). */
export async function ensureDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  await withAdminClient(url, async (c) => {
    const found = await c.query(positional('SELECT 1 FROM pg_database WHERE datname = ?'), [name]);
    if (found.rowCount) return;
    try {
      await c.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    } catch (e) {
      // 42P04 duplicate_database / 23505: another process created it first.
      if (!['42P04', '23505'].includes((e as { code?: string }).code ?? '')) throw e;
    }
  });
}

/** Whether the database of `url` exists (false on 3D000 invalid_catalog_name; other errors, e.g. no server, are thrown). */
export async function databaseExists(url: string): Promise<boolean> {
  const c = new Client({ connectionString: url });
  try {
    await c.connect();
    return true;
  } catch (e) {
    if ((e as { code?: string }).code === '3D000') return false;
    throw e;
  } finally {
    await c.end().catch(() => undefined);
  }
}

export async function dropDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  await withAdminClient(url, (c) => c.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`));
}

async function ensureSchema(url: string, schema: string): Promise<void> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (e) {
    if ((e as { code?: string }).code !== '23505') throw e; // concurrent create
  } finally {
    await c.end();
  }
}

/**
 * Opens MikroORM on the service's own schema. Connections get search_path = <schema> so the
 * hand-written SQL of migrations and repositories never names another service's tables.
 */
export async function openOrm(opts: DbOptions): Promise<Orm> {
  if (!SCHEMA_NAME.test(opts.schema)) throw new Error(`bad schema name ${opts.schema}`);
  await ensureSchema(opts.url, opts.schema);
  const orm = await MikroORM.init<PostgreSqlDriver>({
    driver: PostgreSqlDriver,
    clientUrl: opts.url,
    schema: opts.schema,
    entities: opts.entities,
    extensions: [Migrator],
    discovery: { warnWhenNoEntities: false },
    allowGlobalContext: false,
    debug: false,
    // Our own logs say what migrations applied; MikroORM's logger would write to stdout.
    logger: () => undefined,
    // knex reports connection trouble with console.log; keep it in the structured log instead.
    driverOptions: { log: knexLog(opts.log ?? pino({ level: 'warn', base: { component: 'db' } }, pino.destination(2))) },
    pool: {
      min: 0,
      max: opts.poolMax ?? 10,
      afterCreate: (conn: PgConnection, done: (err: Error | null, conn: unknown) => void) => {
        conn.query(`SET search_path TO ${opts.schema}`, (err: Error | null) => done(err, conn));
      },
    },
    migrations: {
      migrationsList: opts.migrations,
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      disableForeignKeys: false,
      snapshot: false,
    },
  });
  keepTheFirstError(orm);
  return orm;
}

/** The transaction object MikroORM gets from knex (a transactor). */
interface TransactionContext {
  isCompleted?: () => boolean;
  /** Settles when the transaction ends; rejected with the error of a failed BEGIN or COMMIT. */
  executionPromise?: Promise<unknown>;
}

/**
 * Makes a transaction whose connection died under its BEGIN fail with the connection's error
 * (57P01, "Connection terminated", ...), which isBackendUnavailable knows. knex hands out such a
 * transaction anyway, already completed, with the BEGIN's error parked in `executionPromise`; its
 * first query then failed with "Transaction query already complete" (a DriverException without a
 * code), and a Postgres outage answered 500. begin() now throws the parked error instead.
 */
export function keepTheFirstError(orm: Orm): void {
  const driver = orm.em.getDriver();
  const connection = driver.getConnection() as unknown as { begin: (...args: unknown[]) => Promise<TransactionContext> };
  const begin = connection.begin.bind(connection);
  connection.begin = async (...args) => {
    const trx = await begin(...args);
    if (trx?.isCompleted?.()) {
      await trx.executionPromise?.catch((e: unknown) => {
        throw driver.convertException(e as Error);
      });
      throw new Error('the transaction ended before it began');
    }
    return trx;
  };
}

function knexLog(log: Logger) {
  return {
    warn: (message: unknown) => log.warn({ db: driverMessage(String(message)) }, 'database driver warning'),
    error: (message: unknown) => log.error({ db: driverMessage(String(message)) }, 'database driver error'),
    deprecate: (method: unknown, alternative: unknown) => log.warn({ db: `${String(method)} is deprecated; use ${String(alternative)}` }, 'database driver warning'),
    debug: () => undefined,
  };
}

/** A migration that runs one fixed SQL text (a frozen DDL version of a shared table set). */
export function ddlMigration(sql: string): Constructor<Migration> {
  return class extends MigrationBase {
    override up(): void {
      this.addSql(sql);
    }
  };
}

/** A tagged template's text, its fragments put back in place, trimmed. */
function joined(parts: TemplateStringsArray, fragments: readonly string[]): string {
  return parts.reduce((sql, part, i) => `${sql}${fragments[i - 1]}${part}`).trim();
}

/**
 * The DDL of a record of one organization and environment that its caller names by an external id
 * (created retry-safe under it), for a service's versioned migration to interpolate. A template tag:
 * scopedTable('customers', 'external_customer_id')`<columns>` writes
 *
 *   CREATE TABLE customers (id uuid PRIMARY KEY, organization_id, environment ('test' | 'live'),
 *     external_customer_id text NOT NULL, <columns>,
 *     CONSTRAINT customers_external_id UNIQUE (organization_id, environment, external_customer_id));
 *   CREATE INDEX customers_list ON customers (organization_id, environment, created_at DESC, id DESC);
 *
 * The columns are the table's own columns and constraints (created_at among them, for the list
 * index), without a trailing comma; `listIndex: false` leaves the index out. FROZEN: migrations that
 * shipped run this text, pinned (whitespace aside) in test/deploy/migrations.lock.json; a table of
 * another shape writes its own DDL, it does not change this.
 */
export function scopedTable(name: string, externalId: string, opts: { listIndex?: boolean } = {}) {
  return (parts: TemplateStringsArray, ...fragments: string[]): string => {
    const columns = joined(parts, fragments);
    const table = `
      CREATE TABLE ${name} (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        ${externalId} text NOT NULL,
        ${columns},
        CONSTRAINT ${name}_external_id UNIQUE (organization_id, environment, ${externalId})
      );`;
    if (opts.listIndex === false) return table;
    return `${table}
      CREATE INDEX ${name}_list ON ${name} (organization_id, environment, created_at DESC, id DESC);`;
  };
}

/**
 * The DDL that gives each of `tables` the caller's `metadata` (API-DECISIONS §11: key-value pairs,
 * never used for accounting; a JSON object, {} when none), one statement a table. FROZEN, like
 * scopedTable: shipped migrations run this text.
 */
export function addMetadataColumns(tables: readonly string[]): string {
  return tables.map((t) => `ALTER TABLE ${t} ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object');`).join('\n');
}

/**
 * The DDL of a table of totals per organization, environment and key (a projection's running sums
 * or maxima, one row per key, kept with a commutative update), for a versioned migration to
 * interpolate. A template tag: totalsTable('account_days', ['account_code text NOT NULL', 'entry_date date NOT NULL'])`<totals>`
 * writes
 *
 *   CREATE TABLE account_days (organization_id uuid NOT NULL, environment text NOT NULL,
 *     account_code text NOT NULL, entry_date date NOT NULL, <totals>,
 *     PRIMARY KEY (organization_id, environment, account_code, entry_date));
 *
 * `key` are the key columns in key order (each named by its first word); the totals are the other
 * columns, without a trailing comma. FROZEN, like scopedTable.
 */
export function totalsTable(name: string, key: readonly string[]) {
  return (parts: TemplateStringsArray, ...fragments: string[]): string => `
    CREATE TABLE ${name} (
      organization_id uuid NOT NULL,
      environment text NOT NULL,
      ${key.join(',\n')},
      ${joined(parts, fragments)},
      PRIMARY KEY (organization_id, environment, ${key.map((column) => column.split(' ')[0]).join(', ')})
    );`;
}

/** Applies pending migrations; returns their names. */
export async function migrate(orm: Orm): Promise<string[]> {
  const done = await orm.getMigrator().up();
  return done.map((m) => m.name);
}

/** Readiness probe: one round trip to Postgres. */
export async function pingDb(orm: Orm): Promise<boolean> {
  try {
    await orm.em.getConnection().execute('SELECT 1');
    return true;
  } catch {
    return false;
  }
}
