import { randomUUID } from 'node:crypto';
import { listQuery } from '@acct/kit';
import { type TestService, ctx, startServiceForTest } from '@acct/testing';
import { reportingService } from './service';
import { reportQueries } from './queries/reports';

/**
 * A list of its own SQL (the journal, reporting's queries/reports.ts) paged by cursor, against real
 * Postgres: the statement the service runs, EXPLAINed after ANALYZE on 60,000 seeded entries, seeks
 * the journal_entries_list index to a deep cursor (either way) and to a created range, with no Sort;
 * and the service walks the journal both ways and refuses another organization's entry as cursor.
 */
describe('journal entries: cursor pages and created bounds on the list index', () => {
  let rep: TestService;
  const c = ctx();
  const s = { organizationId: c.organizationId, environment: c.environment };
  beforeAll(async () => {
    rep = await startServiceForTest(reportingService(), { workers: true, poolMax: 3 });
    await rep.sql(
      `INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id, memo, reverses_entry_id, posted_at, event_id)
       SELECT gen_random_uuid(), CASE WHEN g % 4 = 0 THEN gen_random_uuid() ELSE ?::uuid END, 'test', DATE '2024-01-01' + (g % 700),
              'invoice', gen_random_uuid(), NULL, NULL, timestamptz '2024-01-01' + g * interval '1 minute', gen_random_uuid()
         FROM generate_series(1, 80000) g`,
      [c.organizationId],
    );
    await rep.sql(`ANALYZE journal_entries`);
  }, 120_000);
  afterAll(() => rep?.stop());

  const plan = async (q: { sql: string; params: unknown[] }) => (await rep.sql(`EXPLAIN ${q.sql}`, q.params)).map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');

  it('EXPLAIN: a deep starting_after or ending_before page and a created range use journal_entries_list, with no Sort', async () => {
    const [deep] = await rep.sql(`SELECT id FROM journal_entries WHERE organization_id = ? ORDER BY posted_at DESC, id DESC OFFSET 50000 LIMIT 1`, [c.organizationId]);
    for (const query of [{ starting_after: deep.id }, { ending_before: deep.id }, { 'created[gte]': '2024-01-20', 'created[lt]': '2024-01-21T00:00:00Z' }]) {
      const p = await plan(reportQueries.journalEntries(s, {}, listQuery({ limit: 25, ...query })));
      expect({ query, p }).toMatchObject({ p: expect.stringMatching(/Index Scan (Backward )?using journal_entries_list on journal_entries/) });
      // The page itself, not the subplan that aggregates each entry's lines in line order (which
      // Postgres 16 and later show as a Sort of those few lines under its Aggregate).
      const page = p.split(/\n\s*SubPlan/)[0]!;
      expect({ query, sorted: /Sort|Seq Scan on journal_entries/.test(page) }).toEqual({ query, sorted: false });
    }
  });

  it('walks the journal both ways by cursor, as the offset pages give it; refuses another organization entry as cursor', async () => {
    const list = async (query: Record<string, unknown>) => {
      const r = await rep.call('journal_entries.list', c, { query: { limit: 100, ...query } });
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      return r.body as { data: { id: string }[]; pagination: { has_more: boolean } };
    };
    const byOffset = (await rep.sql(`SELECT id FROM journal_entries WHERE organization_id = ? ORDER BY posted_at DESC, id DESC OFFSET 40000 LIMIT 300`, [c.organizationId])).map(
      (r: { id: string }) => r.id,
    );
    const after = await list({ starting_after: byOffset[0] });
    expect(after.data.map((x) => x.id)).toEqual(byOffset.slice(1, 101));
    expect(after.pagination.has_more).toBe(true);
    const before = await list({ ending_before: byOffset[200] });
    expect(before.data.map((x) => x.id)).toEqual(byOffset.slice(100, 200));

    const [theirs] = await rep.sql(`SELECT id FROM journal_entries WHERE organization_id <> ? LIMIT 1`, [c.organizationId]);
    const r = await rep.call('journal_entries.list', c, { query: { limit: 5, starting_after: theirs.id } });
    expect(r.ok ? 'ok' : r.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'starting_after' }] });
    const unknown = await rep.call('journal_entries.list', c, { query: { limit: 5, ending_before: randomUUID() } });
    expect(unknown.ok ? 'ok' : unknown.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'ending_before' }] });
  });
});
