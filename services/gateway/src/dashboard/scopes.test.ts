import { ScopeStore } from './scopes';

/** A connection answering the scope query with `rows`, counting the queries. */
function fakeOrm(rows: () => unknown[]) {
  const queries: unknown[][] = [];
  const orm = {
    em: {
      getConnection: () => ({
        execute: async (_sql: string, params: unknown[]) => {
          queries.push(params);
          return rows();
        },
      }),
    },
  };
  return { orm: orm as unknown as ConstructorParameters<typeof ScopeStore>[0], queries };
}

const ORG = '0a000000-0000-4000-8000-000000000001';

describe('ScopeStore', () => {
  it('reads an organization with its apps, oldest first, and caches it for the TTL', async () => {
    const { orm, queries } = fakeOrm(() => [
      { enabled_modules: ['customers'], app_id: 'a1', app_status: 'active' },
      { enabled_modules: ['customers'], app_id: 'a2', app_status: 'disabled' },
    ]);
    const store = new ScopeStore(orm, 1000);
    const scope = await store.org(ORG, 1); // lru-cache reads a start of 0 as none
    expect(scope).toEqual({
      enabledModules: new Set(['customers']),
      apps: [
        { id: 'a1', active: true },
        { id: 'a2', active: false },
      ],
    });
    await store.org(ORG, 1000);
    expect(queries).toHaveLength(1);
    await store.org(ORG, 1002);
    expect(queries).toEqual([[ORG], [ORG]]);
  });

  it('reads an organization without apps as one with none, and does not cache an unknown one', async () => {
    let rows: unknown[] = [{ enabled_modules: [], app_id: null, app_status: null }];
    const { orm, queries } = fakeOrm(() => rows);
    const store = new ScopeStore(orm, 1000);
    expect(await store.org(ORG, 0)).toEqual({ enabledModules: new Set(), apps: [] });
    rows = [];
    const other = '0a000000-0000-4000-8000-000000000002';
    expect(await store.org(other, 0)).toBeNull();
    expect(await store.org(other, 1)).toBeNull();
    expect(queries).toHaveLength(3);
  });

  it('caches nothing with a TTL of 0', async () => {
    const { orm, queries } = fakeOrm(() => [{ enabled_modules: [], app_id: null, app_status: null }]);
    const store = new ScopeStore(orm, 0);
    await store.org(ORG, 0);
    await store.org(ORG, 0);
    expect(queries).toHaveLength(2);
  });
});
