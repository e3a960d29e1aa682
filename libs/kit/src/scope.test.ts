import type { EntityManager } from '@mikro-orm/postgresql';
import { findAllInScope, findInScope, type ScopedRow } from './scope';

const mine = { organizationId: 'org-a', environment: 'test' as const };
const rows: ScopedRow[] = [
  { id: '1', organizationId: 'org-a', environment: 'test' },
  { id: '2', organizationId: 'org-b', environment: 'test' },
  { id: '3', organizationId: 'org-a', environment: 'live' },
];

/** An EntityManager that answers from `rows` and records each WHERE it was given. */
function fakeEm(): { em: EntityManager; wheres: unknown[] } {
  const wheres: unknown[] = [];
  const em = {
    findOne: (_e: unknown, where: { id: string }) => {
      wheres.push(where);
      return Promise.resolve(rows.find((r) => r.id === where.id) ?? null);
    },
    find: (_e: unknown, where: { id: { $in: string[] } }) => {
      wheres.push(where);
      return Promise.resolve(rows.filter((r) => where.id.$in.includes(r.id)));
    },
  } as unknown as EntityManager;
  return { em, wheres };
}

describe('findInScope', () => {
  it('looks a row up by primary key alone (no scope in the WHERE, so Postgres uses the primary key)', async () => {
    const { em, wheres } = fakeEm();
    await findInScope(em, 'Row', '1', mine);
    expect(wheres).toEqual([{ id: '1' }]);
  });

  it('returns the row of the scope, and null for a row of another organization or environment', async () => {
    const { em } = fakeEm();
    expect(await findInScope(em, 'Row', '1', mine)).toEqual(rows[0]);
    expect(await findInScope(em, 'Row', '2', mine)).toBeNull();
    expect(await findInScope(em, 'Row', '3', mine)).toBeNull();
    expect(await findInScope(em, 'Row', '9', mine)).toBeNull();
  });

  it('keeps only the rows of the scope among many ids', async () => {
    const { em, wheres } = fakeEm();
    expect(await findAllInScope(em, 'Row', ['1', '2', '3'], mine)).toEqual([rows[0]]);
    expect(wheres).toEqual([{ id: { $in: ['1', '2', '3'] } }]);
  });
});
