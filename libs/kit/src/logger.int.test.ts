import { DriverException } from '@mikro-orm/core';
import { freshDatabase, type TestDatabase } from '@acct/testing';
import { type Orm, openOrm } from './db';
import { createLogger } from './logger';

/** What a real unique violation logs: the codes that explain it, none of the values in it. */
describe('logging a database error', () => {
  let db: TestDatabase;
  let orm: Orm;
  beforeAll(async () => {
    db = await freshDatabase('acct_kit_log');
    orm = await openOrm({ url: db.url, schema: 'svc_log', entities: [], migrations: [] });
    const conn = orm.em.getConnection();
    await conn.execute('CREATE TABLE people (id int PRIMARY KEY, name text, email text CONSTRAINT people_email UNIQUE)');
    await conn.execute(`INSERT INTO people VALUES (1, 'Ada Lovelace', 'ada@example.com')`);
  });
  afterAll(async () => {
    await orm.close(true);
    await db.drop();
  });

  /** The error of inserting a second person with Ada's e-mail. */
  async function uniqueViolation(): Promise<Error> {
    try {
      await orm.em.getConnection().execute('INSERT INTO people VALUES (?, ?, ?)', [2, 'Grace Hopper', 'ada@example.com']);
    } catch (e) {
      return e as Error;
    }
    throw new Error('expected a unique violation');
  }

  function logged(err: unknown): { raw: string; record: Record<string, any> } {
    const lines: string[] = [];
    const log = createLogger('svc', 'info', { write: (s: string) => void lines.push(s) });
    log.error({ err }, 'request failed');
    return { raw: lines.join(''), record: JSON.parse(lines[0]!) as Record<string, any> };
  }

  it.each([
    ['the pg error', async () => uniqueViolation()],
    ['the MikroORM DriverException', async () => orm.em.getDriver().convertException(await uniqueViolation())],
    ['an error caused by it', async () => new Error('create failed', { cause: await uniqueViolation() })],
  ])('keeps SQLSTATE, constraint and table of %s, and no statement or values', async (_what, make) => {
    const err = await make();
    // The error itself carries the values that must stay out of the log.
    const everything = JSON.stringify({ ...err, message: err.message, stack: err.stack, cause: (err as { cause?: unknown }).cause, ...((err as { cause?: object }).cause ?? {}) });
    expect(everything).toContain('ada@example.com');
    const { raw, record } = logged(err);
    for (const value of ['ada@example.com', 'Grace Hopper', 'INSERT INTO', 'Key (']) expect(raw).not.toContain(value);
    const db = record.err.constraint ? record.err : record.err.cause;
    expect(db).toMatchObject({ code: '23505', constraint: 'people_email', table: 'people', message: 'duplicate key value violates unique constraint "people_email"' });
    for (const k of ['sql', 'query', 'parameters', 'params', 'detail', 'where']) expect(db).not.toHaveProperty(k);
    expect(db.stack).toMatch(/^\w+: duplicate key value/);
  });

  it('is a DriverException once MikroORM converts it', async () => {
    expect(orm.em.getDriver().convertException(await uniqueViolation())).toBeInstanceOf(DriverException);
  });
});
