import { randomUUID } from 'node:crypto';
import { EntitySchema } from '@mikro-orm/core';
import { Migration } from '@mikro-orm/migrations';
import { migratedOrm } from '@acct/testing';
import { type Scoped, scopedColumns } from './columns';
import type { Orm } from './db';
import { BatchedGets, GETS_PER_STATEMENT } from './reads';
import type { Scope } from './scope';
import * as sql from './sql';
import { entityRows, withQuery } from './sql';

interface Widget extends Scoped {
  name: string;
}

const WidgetSchema = new EntitySchema<Widget>({
  name: 'Widget',
  tableName: 'widgets',
  properties: { ...scopedColumns, name: { type: 'text' } },
});

class Widgets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`CREATE TABLE widgets (id uuid PRIMARY KEY, organization_id uuid NOT NULL, environment text NOT NULL, created_at timestamptz NOT NULL, name text NOT NULL)`);
  }
}

describe('gets by id of one turn share one statement (BatchedGets) against real Postgres', () => {
  let orm: Orm;
  let stop: () => Promise<void>;
  const scope: Scope = { organizationId: randomUUID(), environment: 'test' };
  const other: Scope = { organizationId: randomUUID(), environment: 'test' };
  const live: Scope = { organizationId: scope.organizationId, environment: 'live' };

  beforeAll(async () => {
    ({ orm, stop } = await migratedOrm('acct_kit_gets', 'svc_gets', WidgetSchema as EntitySchema, { name: 'Widgets', class: Widgets }));
  });
  afterAll(() => stop());
  afterEach(() => jest.restoreAllMocks());

  const insert = async (s: Scope, name: string): Promise<Widget> => {
    const rows = entityRows(orm, WidgetSchema);
    const w: Widget = { id: randomUUID(), organizationId: s.organizationId, environment: s.environment, createdAt: new Date('2026-11-01T10:11:12.345Z'), name };
    await withQuery(orm, (q) => q(rows.insert, rows.values(w)));
    return w;
  };
  const statements = () => jest.spyOn(sql, 'withQuery');

  it('reads the gets of one turn with one statement, each answered as alone, the scope checked on each row', async () => {
    const gets = new BatchedGets(orm, entityRows(orm, WidgetSchema));
    const a = await insert(scope, 'a');
    const b = await insert(scope, 'b "quoted" \\ {braces}');
    const theirs = await insert(other, 'theirs');
    const spy = statements();
    const [ga, gb, gaAgain, gTheirs, gTheirsAsThem, gLive, gNone] = await Promise.all([
      gets.get(a.id, scope),
      gets.get(b.id, scope),
      gets.get(a.id, scope),
      gets.get(theirs.id, scope), // another organization's row: not found for this scope
      gets.get(theirs.id, other),
      gets.get(a.id, live), // the same organization's other environment: not found
      gets.get(randomUUID(), scope),
    ]);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(ga).toEqual(a);
    expect(gb).toEqual(b);
    expect(gaAgain).toEqual(a);
    expect(gaAgain).not.toBe(ga); // each caller gets its own object
    expect(gTheirs).toBeNull();
    expect(gTheirsAsThem).toEqual(theirs);
    expect(gLive).toBeNull();
    expect(gNone).toBeNull();
  });

  it('finds an id in another spelling, and answers null for an id no row can have without failing the others', async () => {
    const gets = new BatchedGets(orm, entityRows(orm, WidgetSchema));
    const a = await insert(scope, 'a');
    const spy = statements();
    const got = await Promise.all([
      gets.get(a.id.toUpperCase(), scope),
      gets.get('not-a-uuid', scope),
      gets.get(`${a.id}\u0000`, scope),
      gets.get(`{${a.id}}`, scope),
      gets.get(a.id, scope),
    ]);
    expect(got).toEqual([a, null, null, null, a]);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('sees every write committed before the get was asked (read-your-writes)', async () => {
    const gets = new BatchedGets(orm, entityRows(orm, WidgetSchema));
    for (let i = 0; i < 5; i++) {
      const w = await insert(scope, `w${i}`);
      await expect(gets.get(w.id, scope)).resolves.toEqual(w);
    }
  });

  it(`splits a turn of more than ${GETS_PER_STATEMENT} ids into statements of at most that many`, async () => {
    const gets = new BatchedGets(orm, entityRows(orm, WidgetSchema));
    const made = await Promise.all(Array.from({ length: GETS_PER_STATEMENT + 20 }, (_, i) => insert(scope, `n${i}`)));
    const spy = statements();
    const got = await Promise.all(made.map((w) => gets.get(w.id, scope)));
    expect(got).toEqual(made);
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it('fails every get of a failed statement, and the next turn reads again', async () => {
    const rows = entityRows(orm, WidgetSchema);
    const broken = { ...rows, byIds: { name: 'gets_broken', text: 'SELECT * FROM no_such_table WHERE id = ANY($1::uuid[])' } };
    const gets = new BatchedGets(orm, broken);
    const a = await insert(scope, 'a');
    const both = await Promise.allSettled([gets.get(a.id, scope), gets.get(randomUUID(), scope)]);
    expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((both[0] as PromiseRejectedResult).reason)).toMatch(/no_such_table/);
    await expect(new BatchedGets(orm, rows).get(a.id, scope)).resolves.toEqual(a);
  });

  it("casts the array to the key column's type", () => {
    expect(entityRows(orm, WidgetSchema).idType).toBe('uuid');
    expect(entityRows(orm, WidgetSchema).byIds.text).toMatch(/WHERE id = ANY\(\$1::uuid\[\]\)$/);
  });
});
