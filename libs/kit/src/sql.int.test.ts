import { randomUUID } from 'node:crypto';
import { EntitySchema } from '@mikro-orm/core';
import { Migration } from '@mikro-orm/migrations';
import { migratedOrm } from '@acct/testing';
import { moneyColumn, type Scoped, scopedColumns } from './columns';
import type { Orm } from './db';
import { entityRows, getInScope, insertInScopeOf, statement, transactionQuery, withQuery } from './sql';

interface Gadget extends Scoped {
  name: string;
  dueDate: string;
  lines: { description: string; quantity: number }[];
  totalCents: number;
  memo: string | null;
  postedAt: Date | null;
}

const GadgetSchema = new EntitySchema<Gadget>({
  name: 'Gadget',
  tableName: 'gadgets',
  properties: {
    ...scopedColumns,
    name: { type: 'text' },
    dueDate: { type: 'string', columnType: 'date', fieldName: 'due_date' },
    lines: { type: 'json' },
    totalCents: { ...moneyColumn(), fieldName: 'total_cents' },
    memo: { type: 'text', nullable: true },
    postedAt: { type: 'Date', fieldName: 'posted_at', nullable: true },
  },
});

class Gadgets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`CREATE TABLE gadgets (id uuid PRIMARY KEY, organization_id uuid NOT NULL, environment text NOT NULL, created_at timestamptz NOT NULL,
      name text NOT NULL, due_date date NOT NULL, lines jsonb NOT NULL, total_cents bigint NOT NULL, memo text, posted_at timestamptz)`);
  }
}

describe('pg directly with named statements (entityRows) against real Postgres', () => {
  let orm: Orm;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ orm, stop } = await migratedOrm('acct_kit_sql', 'svc_sql', GadgetSchema as EntitySchema, { name: 'Gadgets', class: Gadgets }));
  });
  afterAll(() => stop());

  const gadget = (over: Partial<Gadget> = {}): Gadget => ({
    id: randomUUID(),
    organizationId: randomUUID(),
    environment: 'test',
    createdAt: new Date('2026-11-01T10:11:12.345Z'),
    name: 'O\'Brien, "quoted" \\ back',
    dueDate: '2026-12-01',
    lines: [{ description: 'a "line", {braces}', quantity: 1.25 }],
    totalCents: 9_007_199_254_740_991,
    memo: null,
    postedAt: new Date('2026-11-02T00:00:00.001Z'),
    ...over,
  });

  it('writes and reads a row exactly as MikroORM does', async () => {
    const rows = entityRows(orm, GadgetSchema);
    const mine = gadget();
    const theirs = gadget({ memo: 'm', postedAt: null });
    await withQuery(orm, (q) => q(rows.insert, rows.values(mine)));
    await orm.em.fork().insert(GadgetSchema, theirs);
    for (const g of [mine, theirs]) {
      const viaOrm = await orm.em.fork().findOneOrFail(GadgetSchema, { id: g.id });
      const viaPg = await withQuery(orm, (q) => getInScope(q, rows, g.id, { organizationId: g.organizationId, environment: 'test' }));
      expect(viaPg).toEqual({ ...viaOrm });
      expect(viaPg).toEqual(g);
    }
  });

  it('answers null for a row of another scope or none, and locks inside a transaction', async () => {
    const rows = entityRows(orm, GadgetSchema);
    const g = gadget();
    await withQuery(orm, (q) => q(rows.insert, rows.values(g)));
    await withQuery(orm, async (q) => {
      expect(await getInScope(q, rows, g.id, { organizationId: randomUUID(), environment: 'test' })).toBeNull();
      expect(await getInScope(q, rows, g.id, { organizationId: g.organizationId, environment: 'live' })).toBeNull();
      expect(await getInScope(q, rows, randomUUID(), { organizationId: g.organizationId, environment: 'test' })).toBeNull();
    });
    const locked = await orm.em.fork().transactional(async (em) => {
      const q = await transactionQuery(em);
      const row = await getInScope(q, rows, g.id, { organizationId: g.organizationId, environment: 'test' }, { lock: true });
      // The lock is this transaction's: another session cannot take it now.
      const other = await withQuery(orm, (q2) => q2(statement('t_skip_locked', 'SELECT id FROM gadgets WHERE id = ? FOR UPDATE SKIP LOCKED'), [g.id]));
      return { row, other };
    });
    expect(locked.row?.id).toBe(g.id);
    expect(locked.other).toEqual([]);
  });

  it('writes many rows through one fixed statement (unnest), exactly as one by one', async () => {
    const rows = entityRows(orm, GadgetSchema);
    const many = statement('t_gadgets_unnest', `INSERT INTO gadgets (${rows.columns}) SELECT * FROM ${rows.unnest('k')} RETURNING id`);
    const three = [
      gadget(),
      gadget({ memo: 'a\tb\n{"x": [1,2]}', postedAt: null, lines: [], name: '' }),
      gadget({ name: 'NULL', memo: 'null', lines: [{ description: 'é ☃ \\"', quantity: 0 }] }),
    ];
    const one = [gadget()];
    const stored = await withQuery(orm, async (q) => [...(await q<{ id: string }>(many, rows.arrays(three))), ...(await q<{ id: string }>(many, rows.arrays(one)))]);
    expect(stored.map((r) => r.id)).toEqual([...three, ...one].map((g) => g.id));
    for (const g of [...three, ...one]) {
      const viaOrm = await orm.em.fork().findOneOrFail(GadgetSchema, { id: g.id });
      expect({ ...viaOrm }).toEqual(g);
    }
    expect(rows.arrays([])).toEqual(rows.columns.split(', ').map(() => []));
  });

  it('inserts a row only when its parent is a row of the same scope (insertInScopeOf), in one statement', async () => {
    const rows = entityRows(orm, GadgetSchema);
    const parent = gadget();
    await withQuery(orm, (q) => q(rows.insert, rows.values(parent)));
    const child = (over: Partial<Gadget> = {}) => gadget({ organizationId: parent.organizationId, ...over });
    const insert = (g: Gadget, parentId: string) => withQuery(orm, (q) => insertInScopeOf(q, rows, g, { table: 'gadgets', id: parentId }, 't_gadget_of_gadget'));
    const mine = child({ name: 'NULL "q" \\ {b}' });
    const otherOrg = gadget(); // same parent id, another organization
    const otherEnv = child({ environment: 'live' });
    const orphan = child();
    expect(await insert(mine, parent.id)).toBe(true);
    expect(await insert(otherOrg, parent.id)).toBe(false);
    expect(await insert(otherEnv, parent.id)).toBe(false);
    expect(await insert(orphan, randomUUID())).toBe(false);
    const stored = await withQuery(orm, (q) =>
      q<{ id: string }>(statement('t_gadgets_ids', 'SELECT id FROM gadgets WHERE id = ANY(?::uuid[])'), [[mine, otherOrg, otherEnv, orphan].map((g) => g.id)]),
    );
    expect(stored.map((r) => r.id)).toEqual([mine.id]);
    expect({ ...(await orm.em.fork().findOneOrFail(GadgetSchema, { id: mine.id })) }).toEqual(mine);
    // A taken id fails the statement, as a plain INSERT would.
    await expect(insert(mine, parent.id)).rejects.toMatchObject({ code: '23505' });
  });

  it('refuses an entity that is not flat', () => {
    const Odd = new EntitySchema<{ a: number; b: number }>({ name: 'Odd', tableName: 'odd', properties: { a: { type: 'number', primary: true }, b: { type: 'number' } } });
    expect(() => entityRows(orm, Odd as EntitySchema<{ a: number; b: number }, never>)).toThrow();
  });
});
