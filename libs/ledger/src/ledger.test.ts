import { ACCOUNT, accountId, DEFAULT_CHART } from './accounts';
import { GENESIS_HASH, chainHash } from './chain';
import { ENTRY_ID as ENTRY, INVOICE_ID as INVOICE, invoiceChainEntry } from './chain.test-data';
import { ChainHeads, insertDefaultAccounts, insertJournalEntries, LEDGER_DDL, type NamedSql } from './index';

const ORG = '7d9f6c1e-2b1a-4f3e-9c8d-0a1b2c3d4e5f';

function recorder() {
  const calls: { sql: string; params: unknown[] }[] = [];
  const execute = async (sql: string, params: unknown[]) => {
    // Every statement's placeholders must match its parameters one for one.
    expect(sql.split('?').length - 1).toBe(params.length);
    calls.push({ sql, params });
  };
  return { calls, execute };
}

describe('LEDGER_DDL', () => {
  it('uses unqualified names and no ? (MikroORM would read it as a placeholder)', () => {
    const sql = LEDGER_DDL.map((d) => d.sql).join('\n');
    expect(sql).not.toContain('?');
    expect(sql).not.toMatch(/\b\w+\.journal_/);
    for (const t of ['ledger_accounts', 'journal_entries', 'journal_lines']) expect(sql).toContain(`CREATE TABLE ${t}`);
    expect(sql).toContain('DEFERRABLE INITIALLY DEFERRED');
  });
});

describe('insertDefaultAccounts', () => {
  it('inserts the whole chart with stable ids, ON CONFLICT DO NOTHING', async () => {
    const { calls, execute } = recorder();
    await insertDefaultAccounts(execute, ORG, 'test');
    expect(calls).toHaveLength(1);
    expect(calls[0]?.sql).toMatch(/ON CONFLICT DO NOTHING$/);
    expect(calls[0]?.params.slice(0, 7)).toEqual([accountId(ORG, 'test', '1000'), ORG, 'test', '1000', 'Cash', 'asset', 'cash']);
    expect(calls[0]?.params).toHaveLength(7 * DEFAULT_CHART.length);
  });
});

describe('insertJournalEntries', () => {
  /** A fake database: the scope's chain head is 2 entries in (GENESIS_HASH as its hash, for brevity), unless `missing`. */
  function named(options: { missing?: boolean } = {}) {
    const calls: { s: NamedSql; values: unknown[] }[] = [];
    let exists = !options.missing;
    const head = () => (exists ? [{ organization_id: ORG, environment: 'live', entries: '2', head_hash: GENESIS_HASH }] : []);
    const run = async <R>(s: NamedSql, values: unknown[]): Promise<R[]> => {
      // One array of values per placeholder.
      expect(s.sql.split('?').length - 1).toBe(values.length);
      expect(values.every((v) => Array.isArray(v))).toBe(true);
      calls.push({ s, values });
      if (s.name === 'ledger_create_chain_heads') exists = true;
      if (s.name === 'ledger_lock_chain_heads') return head() as R[];
      if (s.name.startsWith('ledger_write_chained')) {
        const [scopes, , prevEntries, prevHash] = values as unknown[][];
        // No scope (no entries): ok, and no head (the statement's ok LEFT JOIN locked).
        if (!scopes!.length) return [{ ok: true, organization_id: null, environment: null, entries: null, head_hash: null }] as R[];
        const ok = exists && prevEntries![0] === 2 && prevHash![0] === GENESIS_HASH;
        return head().map((h) => ({ ok, ...h })) as R[];
      }
      return [];
    };
    return { calls, run };
  }
  const scope = { organizationId: ORG, environment: 'live' as const };
  const draft = {
    id: ENTRY,
    entryDate: '2026-01-15',
    sourceType: 'invoice',
    sourceId: INVOICE,
    lines: [
      { accountCode: ACCOUNT.receivable, side: 'debit' as const, amountCents: 500, invoiceId: INVOICE },
      { accountCode: ACCOUNT.processorFees, side: 'debit' as const, amountCents: 0 },
      { accountCode: ACCOUNT.revenue, side: 'credit' as const, amountCents: 500, memo: 'why?' },
    ],
  };

  it('with a head it does not know: locks and reads the head, then the chained write', async () => {
    const { calls, run } = named();
    const heads = new ChainHeads();
    const hashes = await insertJournalEntries(run, [{ scope, entry: draft }], { heads });
    expect(calls.map((c) => [c.s.name, c.values.slice(0, 4)])).toEqual([
      ['ledger_lock_chain_heads', [[ORG], ['live']]],
      ['ledger_write_chained', [[ORG], ['live'], [2], [GENESIS_HASH]]],
    ]);
    expect(calls.every((c) => !c.s.sql.includes('$'))).toBe(true);
    // Third entry of the chain, hashed over the head's hash and the entry without its zero line.
    const hash = chainHash(GENESIS_HASH, invoiceChainEntry(accountId(ORG, 'live', '1100'), accountId(ORG, 'live', '4000')));
    expect(hashes).toEqual(new Map([[ENTRY, hash]]));
    const values = calls[1]!.values;
    // The heads: where they are, where they go (k).
    expect(values.slice(0, 7)).toEqual([[ORG], ['live'], [2], [GENESIS_HASH], [3], [hash], [ENTRY]]);
    // The entries (e).
    expect(values.slice(7, 17)).toEqual([[ENTRY], [ORG], ['live'], ['2026-01-15'], ['invoice'], [INVOICE], [null], [null], [3], [hash]]);
    // Every numbered line, the zero line dropped (l).
    expect(values.slice(17)).toEqual([
      [ENTRY, ENTRY],
      [1, 2],
      [accountId(ORG, 'live', '1100'), accountId(ORG, 'live', '4000')],
      ['1100', '4000'],
      ['debit', 'credit'],
      [500, 500],
      [null, null],
      [INVOICE, null],
      [null, null],
      [null, null],
      [null, 'why?'],
    ]);
    // Remembered: the next write of this process predicts it.
    expect(heads.get(scope)).toEqual({ entries: 3, hash });
  });

  it('with the head predicted right: one statement', async () => {
    const { calls, run } = named();
    const heads = new ChainHeads();
    heads.set(scope, { entries: 2, hash: GENESIS_HASH });
    await insertJournalEntries(run, [{ scope, entry: draft }], { heads });
    expect(calls.map((c) => c.s.name)).toEqual(['ledger_write_chained']);
    expect(heads.get(scope)?.entries).toBe(3);
  });

  it('with the head predicted wrong (another writer moved it): chains again after the locked head', async () => {
    const { calls, run } = named();
    const heads = new ChainHeads();
    heads.set(scope, { entries: 1, hash: 'f'.repeat(64) });
    const hashes = await insertJournalEntries(run, [{ scope, entry: draft }], { heads });
    expect(calls.map((c) => [c.s.name, c.values[2]])).toEqual([
      ['ledger_write_chained', [1]],
      ['ledger_write_chained', [2]],
    ]);
    expect(heads.get(scope)).toEqual({ entries: 3, hash: hashes.get(ENTRY) });
  });

  it('writes other writes (the outbox rows, an UPDATE) in the same statement, gated, with the values of the hashes it finally wrote', async () => {
    const { calls, run } = named();
    const seen: string[] = [];
    const also = [
      {
        name: 'x_insert',
        sql: 'INSERT INTO x (id) SELECT id FROM unnest(?::text[]) AS t (id)',
        values: (h: ReadonlyMap<string, string>) => [[...h.values()].map((v) => (seen.push(v), v))],
      },
      { name: 'y_mark', sql: 'UPDATE y SET done = true FROM unnest(?::uuid[]) AS k (id) WHERE y.id = k.id', where: true, values: () => [[INVOICE]] },
    ];
    const hashes = await insertJournalEntries(run, [{ scope, entry: draft }], { also });
    expect(calls.map((c) => c.s.name)).toEqual(['ledger_lock_chain_heads', 'ledger_write_chained_x_insert_y_mark']);
    expect(calls[1]!.s.sql).toContain(
      'also_0 AS (\n    INSERT INTO x (id) SELECT id FROM unnest(?::text[]) AS t (id)\n    WHERE (SELECT ok FROM ok)\n  ), also_1 AS (\n    UPDATE y SET done = true FROM unnest(?::uuid[]) AS k (id) WHERE y.id = k.id\n    AND (SELECT ok FROM ok)\n  )\n  SELECT ok.ok',
    );
    expect(calls[1]!.values.slice(-2)).toEqual([[hashes.get(ENTRY)], [INVOICE]]);
    expect(seen.at(-1)).toBe(hashes.get(ENTRY));
  });

  it('with no entries, makes the other writes alone in the same statement (no head locked); with nothing at all, no statement', async () => {
    const { calls, run } = named();
    const also = [{ name: 'x_insert', sql: 'INSERT INTO x (id) SELECT id FROM unnest(?::text[]) AS t (id)', values: () => [['a']] }];
    expect(await insertJournalEntries(run, [], { also })).toEqual(new Map());
    expect(calls.map((c) => [c.s.name, c.values[0]])).toEqual([['ledger_write_chained_x_insert', []]]);
    await insertJournalEntries(run, []);
    expect(calls).toHaveLength(1);
  });

  it("a scope's first entry: creates its head, locks it, then writes", async () => {
    const { calls, run } = named({ missing: true });
    await insertJournalEntries(run, [{ scope, entry: draft }]);
    expect(calls.map((c) => c.s.name)).toEqual(['ledger_lock_chain_heads', 'ledger_create_chain_heads', 'ledger_lock_chain_heads', 'ledger_write_chained']);
  });

  it('validates every entry before writing anything', async () => {
    const { calls, run } = named();
    const entry = {
      id: ENTRY,
      entryDate: '2026-01-15',
      sourceType: 'invoice',
      sourceId: INVOICE,
      lines: [{ accountCode: ACCOUNT.receivable, side: 'debit' as const, amountCents: 500 }],
    };
    await expect(insertJournalEntries(run, [{ scope, entry }])).rejects.toMatchObject({ code: 'unbalanced' });
    await expect(insertJournalEntries(run, [{ scope, entry: { ...entry, id: 'x' } }])).rejects.toMatchObject({ code: 'bad_entry' });
    expect(calls).toHaveLength(0);
  });
});
