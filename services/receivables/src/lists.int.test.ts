import { randomBytes, randomUUID } from 'node:crypto';
import { RawQueryFragment } from '@mikro-orm/core';
import { type TestService, ctx, startServiceForTest } from '@acct/testing';
import { receivablesService } from './service';

/**
 * Lists of registerReads (API-DECISIONS §3, §11) against real Postgres and NATS, on customers:
 * cursors both ways, created bounds, the external-id lookup, foreign and unknown cursors, and the
 * plans that keep a deep cursor page and a created range fast on a seeded table.
 */
describe('receivables: list cursors, created bounds and lookups', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startServiceForTest(receivablesService({ config: { processorSecretKey: randomBytes(32) } }));
  });
  afterAll(() => svc.stop());

  const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
  const page = async (c: ReturnType<typeof ctx>, query: Record<string, unknown>) => {
    const r = await svc.call('customers.list', c, { query: { limit: 25, ...query } });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.body as { data: { id: string; external_customer_id: string; created_at: string }[]; pagination: { count: number; has_more: boolean; offset: number } };
  };
  const fails = async (c: ReturnType<typeof ctx>, query: Record<string, unknown>) => {
    const r = await svc.call('customers.list', c, { query: { limit: 25, ...query } });
    return r.ok ? { code: 'ok', details: [] } : r.error;
  };

  /** Nine customers; created_at set by hand: days 1..9 of January 2026, days 4 and 5 tied at one instant (ties by id). */
  async function seeded() {
    const c = ctx();
    for (let i = 1; i <= 9; i++) await svc.ok('customers.create', c, { body: { external_customer_id: `x-${i}`, name: `C${i}` } });
    await svc.sql(
      `UPDATE customers SET created_at = CASE WHEN external_customer_id IN ('x-4', 'x-5') THEN timestamptz '2026-01-04T12:00:00Z'
         ELSE timestamptz '2026-01-01T12:00:00Z' + (substr(external_customer_id, 3)::int - 1) * interval '1 day' END
       WHERE organization_id = ?`,
      [c.organizationId],
    );
    const all = (await page(c, { limit: 100 })).data;
    return { c, all };
  }

  it('walks every item once with starting_after and back with ending_before, in list order, has_more in the walking direction', async () => {
    const { c, all } = await seeded();
    expect(all.map((x) => x.external_customer_id).slice(0, 3)).toEqual(['x-9', 'x-8', 'x-7']);
    const walked: string[] = [];
    let after: string | undefined;
    for (;;) {
      const p = await page(c, { limit: 2, ...(after ? { starting_after: after } : {}) });
      walked.push(...ids(p.data));
      if (!p.pagination.has_more) break;
      after = p.data[p.data.length - 1]!.id;
    }
    expect(walked).toEqual(ids(all));

    const back: string[] = [];
    let before = all[all.length - 1]!.id;
    for (;;) {
      const p = await page(c, { limit: 2, ending_before: before });
      back.unshift(...ids(p.data));
      if (!p.pagination.has_more) break;
      before = p.data[0]!.id;
    }
    expect(back).toEqual(ids(all).slice(0, -1));

    // The page just before a cursor, in list order; the ties (x-4, x-5) are split by id the same way both ways.
    const mid = all.findIndex((x) => x.external_customer_id === 'x-4');
    expect(ids((await page(c, { limit: 3, ending_before: all[mid]!.id })).data)).toEqual(ids(all.slice(mid - 3, mid)));
    expect(ids((await page(c, { limit: 3, starting_after: all[mid]!.id })).data)).toEqual(ids(all.slice(mid + 1, mid + 4)));
    expect((await page(c, { limit: 3, ending_before: all[0]!.id })).pagination).toEqual({ limit: 3, offset: 0, count: 0, has_more: false });
    // An upper-case cursor names the same item.
    expect(ids((await page(c, { limit: 1, starting_after: all[0]!.id.toUpperCase() })).data)).toEqual([all[1]!.id]);
  });

  it('filters by created[gte|gt|lte|lt] (a date is 00:00 UTC, a date-time keeps its offset), with the cursor and by external id', async () => {
    const { c, all } = await seeded();
    const ext = async (q: Record<string, unknown>) => (await page(c, { limit: 100, ...q })).data.map((x) => x.external_customer_id);
    expect(await ext({ 'created[gte]': '2026-01-08' })).toEqual(['x-9', 'x-8']);
    expect(await ext({ 'created[gt]': '2026-01-08T12:00:00Z' })).toEqual(['x-9']);
    expect(await ext({ 'created[lt]': '2026-01-03' })).toEqual(['x-2', 'x-1']);
    expect(await ext({ 'created[lte]': '2026-01-02T07:00:00-05:00' })).toEqual(['x-2', 'x-1']); // 12:00Z
    expect(await ext({ 'created[gte]': '2026-01-03', 'created[lt]': '2026-01-05' })).toEqual(ext4and5(all).concat('x-3'));
    expect(await ext({ 'created[gte]': '2026-01-03', starting_after: all.find((x) => x.external_customer_id === 'x-6')!.id })).toEqual(ext4and5(all).concat('x-3'));
    expect(await ext({ external_customer_id: 'x-7' })).toEqual(['x-7']);
    expect(await ext({ external_customer_id: 'X-7' })).toEqual([]);
    expect(await ext({ external_customer_id: 'x-7', 'created[lt]': '2026-01-02' })).toEqual([]);
  });

  it('refuses a cursor of another organization or environment, an unknown one, both cursors and an offset beside one (400 naming the parameter)', async () => {
    const { c, all } = await seeded();
    const other = ctx();
    const live = ctx({ organizationId: c.organizationId, environment: 'live' });
    for (const who of [other, live]) {
      expect(await fails(who, { starting_after: all[0]!.id })).toMatchObject({ code: 'validation_failed', details: [{ field: 'starting_after', issue: 'not_found' }] });
      expect(await fails(who, { ending_before: all[0]!.id })).toMatchObject({ code: 'validation_failed', details: [{ field: 'ending_before' }] });
    }
    expect(await fails(c, { starting_after: randomUUID() })).toMatchObject({ code: 'validation_failed', details: [{ field: 'starting_after' }] });
    expect(await fails(c, { ending_before: randomUUID(), 'created[gte]': '2026-01-01' })).toMatchObject({ code: 'validation_failed', details: [{ field: 'ending_before' }] });
    expect(await fails(c, { starting_after: all[0]!.id, ending_before: all[1]!.id })).toMatchObject({ code: 'validation_failed' });
    expect(await fails(c, { starting_after: all[0]!.id, offset: 2 })).toMatchObject({ code: 'validation_failed', details: [{ field: 'offset' }] });
    expect((await page(c, { starting_after: all[0]!.id, offset: 0 })).data).toHaveLength(all.length - 1);
    // The raw fragments of the keyset are released after each query (no growth per request).
    expect(RawQueryFragment.checkCacheSize()).toBe(0);
  });

  describe('plans on a seeded table (60,000 customers in one organization, 20,000 in others)', () => {
    const org = randomUUID();
    beforeAll(async () => {
      await svc.sql(
        `INSERT INTO customers (id, organization_id, environment, external_customer_id, name, status, created_at, updated_at)
         SELECT gen_random_uuid(), CASE WHEN g % 4 = 0 THEN gen_random_uuid() ELSE ?::uuid END, 'test', 'seed-' || g, 'Seeded ' || g, 'active',
                timestamptz '2020-01-01' + g * interval '1 minute', timestamptz '2020-01-01' + g * interval '1 minute'
           FROM generate_series(1, 80000) g`,
        [org],
      );
      await svc.sql(`ANALYZE customers`);
    });

    const explain = async (sql: string, params: unknown[]) => (await svc.sql(`EXPLAIN ${sql}`, params)).map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    // The statement registerReads has MikroORM write (scope, created bounds, keyset, order, limit + 1).
    const listSql = (extra: string) => `SELECT * FROM customers WHERE organization_id = ? AND environment = ? ${extra} ORDER BY created_at DESC, id DESC LIMIT 26`;

    it('a deep starting_after page seeks the list index to the cursor: no Sort, no scan of the whole organization', async () => {
      const [deep] = await svc.sql(`SELECT id, created_at::text AS at FROM customers WHERE organization_id = ? ORDER BY created_at DESC, id DESC OFFSET 50000 LIMIT 1`, [org]);
      const plan = await explain(listSql(`AND (created_at, id) < (?::timestamptz, ?::uuid)`), [org, 'test', deep.at, deep.id]);
      expect(plan).toMatch(/Index Scan using customers_list on customers/);
      expect(plan).toMatch(/Index Cond: .*ROW\(created_at, id\) < ROW/);
      expect(plan).not.toMatch(/Sort|Seq Scan/);
      const back = await explain(listSql(`AND (created_at, id) > (?::timestamptz, ?::uuid)`).replace('created_at DESC, id DESC', 'created_at ASC, id ASC'), [
        org,
        'test',
        deep.at,
        deep.id,
      ]);
      expect(back).toMatch(/Index Scan Backward using customers_list/);
      expect(back).not.toMatch(/Sort|Seq Scan/);

      // And the service answers that page: the 25 items after the cursor.
      const c = ctx({ organizationId: org });
      const p = await page(c, { starting_after: deep.id });
      const expected = await svc.sql(`SELECT id FROM customers WHERE organization_id = ? ORDER BY created_at DESC, id DESC OFFSET 50001 LIMIT 25`, [org]);
      expect(ids(p.data)).toEqual(ids(expected));
      expect(p.pagination.has_more).toBe(true);
    });

    it('a created range and an external-id lookup use an index, without sorting the organization', async () => {
      const range = await explain(listSql(`AND created_at >= ?::timestamptz AND created_at < ?::timestamptz`), [org, 'test', '2020-01-20T00:00:00Z', '2020-01-21T00:00:00Z']);
      expect(range).toMatch(/Index Scan using customers_list/);
      expect(range).not.toMatch(/Sort|Seq Scan/);
      const lookup = await explain(listSql(`AND external_customer_id = ?`), [org, 'test', 'seed-7']);
      expect(lookup).toMatch(/customers_external_id/);
      expect(lookup).not.toMatch(/Seq Scan/);
    });
  });
});

/** x-5 and x-4 share one instant: their order is by id, descending. */
function ext4and5(all: { id: string; external_customer_id: string }[]): string[] {
  return all.filter((x) => x.external_customer_id === 'x-4' || x.external_customer_id === 'x-5').map((x) => x.external_customer_id);
}
