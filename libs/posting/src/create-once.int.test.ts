import { randomUUID } from 'node:crypto';
import { openOrm, type Orm } from '@acct/kit';
import { freshDatabase, type TestDatabase } from '@acct/testing';
import { createOnce, isUniqueViolation, retryOnceOnUnique } from './create-once';

/** The retry-safe create helpers (create-once.ts) against the unique violations of real Postgres. */
describe('unique violations', () => {
  let db: TestDatabase;
  let orm: Orm;

  beforeAll(async () => {
    db = await freshDatabase('acct_create_once');
    orm = await openOrm({ url: db.url, schema: 'create_once', entities: [], migrations: [], poolMax: 2 });
    // Two unique constraints, to tell a violation of one from the other's.
    await orm.em
      .getConnection()
      .execute('CREATE TABLE widgets (id uuid PRIMARY KEY, ext text NOT NULL, body text NOT NULL, CONSTRAINT widgets_ext UNIQUE (ext), CONSTRAINT widgets_body UNIQUE (body))');
  });
  afterAll(async () => {
    await orm.close(true);
    await db.drop();
  });

  const insert = (ext: string, body: string = randomUUID()) =>
    orm.em.fork().getConnection().execute('INSERT INTO widgets (id, ext, body) VALUES (?, ?, ?)', [randomUUID(), ext, body]);

  it('are told apart by SQLSTATE and constraint name', async () => {
    const ext = randomUUID();
    await insert(ext);
    const e = await insert(ext).catch((err: unknown) => err);
    expect(isUniqueViolation(e, 'widgets_ext')).toBe(true);
    expect(isUniqueViolation(e, 'widgets_body')).toBe(false);
    // The constraint name in the message text alone is not enough.
    expect(isUniqueViolation(new Error('duplicate key value violates unique constraint "widgets_ext"'), 'widgets_ext')).toBe(false);
    const notNull = await orm.em
      .fork()
      .getConnection()
      .execute('INSERT INTO widgets (id, ext, body) VALUES (?, NULL, ?)', [randomUUID(), 'x'])
      .catch((err: unknown) => err);
    expect(isUniqueViolation(notNull, 'widgets_ext')).toBe(false);
  });

  it('retryOnceOnUnique runs again once after that violation, and never after another error', async () => {
    const ext = randomUUID();
    await insert(ext);
    let runs = 0;
    await expect(retryOnceOnUnique('widgets_ext', async () => (++runs === 1 ? insert(ext) : 'second'))).resolves.toBe('second');
    expect(runs).toBe(2);
    runs = 0;
    await expect(retryOnceOnUnique('widgets_body', async () => (++runs, insert(ext)))).rejects.toMatchObject({ code: '23505' });
    expect(runs).toBe(1);
  });

  it('createOnce answers 201, then 200 replayed for the same content, then 409 for other content', async () => {
    const ext: string = randomUUID();
    const once = (body: string) =>
      createOnce({
        constraint: 'widgets_ext',
        create: async () => {
          await insert(ext, body);
          return { ok: true, status: 201, body: { ext, body } };
        },
        existing: async () => ((await orm.em.fork().getConnection().execute('SELECT ext, body FROM widgets WHERE ext = ?', [ext]))[0] as { ext: string; body: string }) ?? null,
        same: (ex) => ex.body === body,
        reply: (ex) => ex,
        field: '/external_widget_id',
        what: 'widget',
      });
    const body: string = randomUUID();
    await expect(once(body)).resolves.toMatchObject({ status: 201 });
    await expect(once(body)).resolves.toMatchObject({ status: 200, replayed: true, body: { ext, body } });
    await expect(once(randomUUID())).rejects.toMatchObject({ code: 'conflict', details: [{ field: '/external_widget_id', issue: 'already_used' }] });
  });
});
