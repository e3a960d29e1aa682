import { ACCOUNT, accountId, DEFAULT_CHART } from './accounts';
import { GENESIS_HASH, chainHash } from './chain';
import { insertDefaultAccounts, insertJournalEntries, LEDGER_DDL, type NamedSql } from './schema';

const ORG = '7d9f6c1e-2b1a-4f3e-9c8d-0a1b2c3d4e5f';
const ENTRY = '44444444-4444-4444-8444-444444444444';
const INVOICE = '11111111-1111-4111-8111-111111111111';

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
  function named() {
    const calls: { s: NamedSql; values: unknown[] }[] = [];
    const run = async <R>(s: NamedSql, values: unknown[]): Promise<R[]> => {
      // One array of values per placeholder, every array one value per row.
      expect(s.sql.split('?').length - 1).toBe(values.length);
      expect(new Set(values.map((v) => (v as unknown[]).length)).size).toBe(1);
      calls.push({ s, values });
      // The chain head of the scope, 2 entries in.
      if (s.name === 'ledger_lock_chain_heads') return [{ organization_id: ORG, environment: 'live', entries: '2', head_hash: GENESIS_HASH }] as R[];
      return [];
    };
    return { calls, run };
  }
  const scope = { organizationId: ORG, environment: 'live' as const };

  it('writes the entries, then all their numbered lines, as two named statements of column arrays', async () => {
    const { calls, run } = named();
    const hashes = await insertJournalEntries(run, [
      {
        scope,
        entry: {
          id: ENTRY,
          entryDate: '2026-01-15',
          sourceType: 'invoice',
          sourceId: INVOICE,
          lines: [
            { accountCode: ACCOUNT.receivable, side: 'debit', amountCents: 500, invoiceId: INVOICE },
            { accountCode: ACCOUNT.processorFees, side: 'debit', amountCents: 0 },
            { accountCode: ACCOUNT.revenue, side: 'credit', amountCents: 500, memo: 'why?' },
          ],
        },
      },
    ]);
    expect(calls.map((c) => [c.s.name, c.s.sql.split(' (')[0]!.split('\n')[0]])).toEqual([
      ['ledger_lock_chain_heads', 'SELECT h.organization_id::text AS organization_id, h.environment, h.entries::text AS entries, h.head_hash'],
      ['ledger_insert_chained_entries', 'INSERT INTO journal_entries'],
      ['ledger_insert_lines', 'INSERT INTO journal_lines'],
      ['ledger_move_chain_heads', 'UPDATE journal_chain_heads AS h SET entries = k.entries, head_hash = k.head_hash, head_entry_id = k.head_entry_id'],
    ]);
    expect(calls.every((c) => !c.s.sql.includes('$'))).toBe(true);
    expect(calls[0]?.values).toEqual([[ORG], ['live']]);
    // Third entry of the chain, hashed over the head's hash and the entry without its zero line.
    const hash = chainHash(GENESIS_HASH, {
      id: ENTRY,
      entryDate: '2026-01-15',
      sourceType: 'invoice',
      sourceId: INVOICE,
      memo: null,
      reversesEntryId: null,
      lines: [
        {
          accountId: accountId(ORG, 'live', '1100'),
          accountCode: '1100',
          side: 'debit',
          amountCents: 500,
          customerId: null,
          invoiceId: INVOICE,
          vendorId: null,
          billId: null,
          memo: null,
        },
        {
          accountId: accountId(ORG, 'live', '4000'),
          accountCode: '4000',
          side: 'credit',
          amountCents: 500,
          customerId: null,
          invoiceId: null,
          vendorId: null,
          billId: null,
          memo: 'why?',
        },
      ],
    });
    expect(hashes).toEqual(new Map([[ENTRY, hash]]));
    expect(calls[1]?.values).toEqual([[ENTRY], [ORG], ['live'], ['2026-01-15'], ['invoice'], [INVOICE], [null], [null], [3], [hash]]);
    expect(calls[3]?.values).toEqual([[ORG], ['live'], [3], [hash], [ENTRY]]);
    expect(calls[2]?.values).toEqual([
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
