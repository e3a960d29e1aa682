import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { migrate, openOrm, type Orm } from '@acct/kit';
import type { LedgerScope } from '@acct/ledger';
import { verifyChain, withPostingMigrations } from '@acct/posting';
import { chainTamperings, freshDatabase, type TestDatabase } from '@acct/testing';
import { seedChain } from '../bench/chain-seed';

const SCHEMA = 'payables';

/**
 * The bench's bulk seeder (test/bench/chain-seed.ts) writes the chain the services write: what it
 * seeds, across statements and transactions, verifies intact with the posting service's verifier
 * and takes further entries after its head; the tamperings of the posting library's chain test show
 * as broken at the first entry affected.
 */
describe('bulk-seeded hash chains (the chain-verify bench) against real Postgres', () => {
  let db: TestDatabase;
  let orm: Orm;
  let pg: Client;
  let su: Client;

  const newScope = (): LedgerScope => ({ organizationId: randomUUID(), environment: 'live' });
  const verify = (scope: LedgerScope) => verifyChain(orm, scope, { batch: 2 });
  const chain = async (scope: LedgerScope) =>
    (
      await pg.query<{ id: string; hash: string; lines: number }>(
        `SELECT e.id::text AS id, e.hash, (SELECT count(*)::int FROM journal_lines l WHERE l.entry_id = e.id) AS lines
         FROM journal_entries e WHERE e.organization_id = $1 AND e.environment = $2 ORDER BY e.chain_seq`,
        [scope.organizationId, scope.environment],
      )
    ).rows;

  beforeAll(async () => {
    db = await freshDatabase('acct_chainseed');
    orm = await openOrm({ url: db.url, schema: SCHEMA, entities: [], migrations: withPostingMigrations([]), poolMax: 4 });
    await migrate(orm);
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await pg.query(`SET search_path = ${SCHEMA}`);
    su = new Client({ connectionString: db.url });
    await su.connect();
    await su.query(`SET search_path = ${SCHEMA}`);
    await su.query('SET session_replication_role = replica');
  });
  afterAll(async () => {
    await pg.end();
    await su.end();
    await orm.close(true);
    await db.drop();
  });

  it('seeds across statements and transactions a chain that verifies intact and goes on after its head', async () => {
    const scope = newScope();
    const progress: number[] = [];
    await seedChain(pg, scope, 11, { statement: 3, transaction: 6, onProgress: (n) => progress.push(n) });
    expect(progress).toEqual([6, 11]);
    const rows = await chain(scope);
    expect(rows).toHaveLength(11);
    expect(new Set(rows.map((r) => r.lines))).toEqual(new Set([2, 3]));
    expect(await verify(scope)).toEqual({ entries: 11, headHash: rows[10]!.hash, firstBrokenEntryId: null, reason: null });
    await seedChain(pg, scope, 4, { statement: 3 });
    expect(await verify(scope)).toMatchObject({ entries: 15, headHash: (await chain(scope))[14]!.hash, firstBrokenEntryId: null });
    // The head row is the writer's: entries and last entry.
    const { rows: heads } = await pg.query('SELECT entries::int AS entries, head_entry_id::text AS head_entry_id FROM journal_chain_heads WHERE organization_id = $1', [
      scope.organizationId,
    ]);
    expect(heads).toEqual([{ entries: 15, head_entry_id: (await chain(scope))[14]!.id }]);
  });

  it.each(chainTamperings((sql, params = []) => su.query(sql, params)))(
    '%s shows as broken at the first entry affected; the other chains stay intact',
    async (_name, change, first) => {
      const scope = newScope();
      const other = newScope();
      await seedChain(pg, scope, 5, { statement: 2, transaction: 4 });
      await seedChain(pg, other, 2);
      const ids = (await chain(scope)).map((r) => r.id);
      expect(await verify(scope)).toMatchObject({ entries: 5, firstBrokenEntryId: null });
      await change(ids, scope);
      const v = await verify(scope);
      expect(v.firstBrokenEntryId).toBe(first(ids));
      expect(v.reason).not.toBeNull();
      expect(await verify(other)).toMatchObject({ entries: 2, firstBrokenEntryId: null });
    },
  );
});
