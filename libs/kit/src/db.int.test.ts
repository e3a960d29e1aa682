import { Migration } from '@mikro-orm/migrations';
import { freshDatabase, type TestDatabase } from '@acct/testing';
import { Client } from 'pg';
import { databaseName, ensureDatabase, migrate, openOrm, pingDb } from './db';
import { isBackendUnavailable } from './unavailable';

class M1 extends Migration {
  override async up(): Promise<void> {
    this.addSql('CREATE TABLE things (id int PRIMARY KEY)');
  }
}
class M2 extends Migration {
  override async up(): Promise<void> {
    this.addSql('INSERT INTO things VALUES (1)');
  }
}

describe('database helpers against real Postgres', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase('acct_kit_db');
  });
  afterAll(async () => db.drop());

  it('ensureDatabase is idempotent', async () => {
    await ensureDatabase(db.url);
    await ensureDatabase(db.url);
    expect(databaseName(db.url)).toMatch(/^acct_kit_db_/);
  });

  it('creates the service schema, applies migrations once, and confines SQL to the schema', async () => {
    const opts = {
      url: db.url,
      schema: 'svc_a',
      entities: [],
      migrations: [
        { name: 'M1', class: M1 },
        { name: 'M2', class: M2 },
      ],
    };
    const orm = await openOrm(opts);
    try {
      expect(await migrate(orm)).toEqual(['M1', 'M2']);
      expect(await migrate(orm)).toEqual([]);
      expect(await pingDb(orm)).toBe(true);
      const conn = orm.em.getConnection();
      const where = await conn.execute(`SELECT table_schema FROM information_schema.tables WHERE table_name IN ('things', 'mikro_orm_migrations') ORDER BY table_name`);
      expect(where.map((r) => (r as { table_schema: string }).table_schema)).toEqual(['svc_a', 'svc_a']);
      expect(await conn.execute('SELECT id FROM things')).toEqual([{ id: 1 }]);
    } finally {
      await orm.close(true);
    }
    // A second service's schema is separate: its own migrations table, no "things".
    const other = await openOrm({ ...opts, schema: 'svc_b', migrations: [{ name: 'M1', class: M1 }] });
    try {
      expect(await migrate(other)).toEqual(['M1']);
      expect(await other.em.getConnection().execute('SELECT count(*)::int AS n FROM things')).toEqual([{ n: 0 }]);
    } finally {
      await other.close(true);
    }
  });

  it("fails a transaction whose connection died before its COMMIT with the connection's error, and the pool replaces it", async () => {
    const orm = await openOrm({ url: db.url, schema: 'svc_lost', entities: [], migrations: [], poolMax: 2 });
    // Only this test's own session is terminated (as a Postgres shutdown or failover would).
    const admin = new Client({ connectionString: db.url });
    await admin.connect();
    try {
      const failed = await orm.em
        .fork()
        .transactional(async (em) => {
          const rows = await em.execute<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
          await admin.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
          await new Promise((r) => setTimeout(r, 300)); // the FATAL 57P01 reaches the client
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(String((failed as Error)?.message)).not.toMatch(/already complete/);
      expect(isBackendUnavailable(failed)).toBe(true);
      // The pool replaces the dead connection: the next transaction works.
      await expect(orm.em.fork().transactional((em) => em.execute('SELECT 1 AS one'))).resolves.toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await orm.close(true);
    }
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(openOrm({ url: db.url, schema: 'x; drop table y', entities: [], migrations: [] })).rejects.toThrow(/bad schema name/);
  });
});
