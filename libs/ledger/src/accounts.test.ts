import { ACCOUNT, accountId, DEFAULT_CHART, findAccount, findAccountById, LEDGER_ACCOUNT_NAMESPACE, normalBalance, uuidV5 } from './accounts';

const ORG = '7d9f6c1e-2b1a-4f3e-9c8d-0a1b2c3d4e5f';

describe('uuidV5', () => {
  it('matches the well-known RFC 4122 example (DNS namespace, www.example.com)', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });
});

describe('accountId', () => {
  it('is stable, version 5 with the RFC variant, and case-insensitive in the organization id', () => {
    const id = accountId(ORG, 'live', ACCOUNT.receivable);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(accountId(ORG, 'live', '1100')).toBe(id);
    expect(accountId(ORG.toUpperCase(), 'live', '1100')).toBe(id);
  });

  it('differs by organization, environment and code', () => {
    const ids = new Set([
      accountId(ORG, 'live', '1100'),
      accountId(ORG, 'test', '1100'),
      accountId(ORG, 'live', '1000'),
      accountId('00000000-0000-4000-8000-000000000001', 'live', '1100'),
    ]);
    expect(ids.size).toBe(4);
  });

  it('refuses a bad organization id or environment', () => {
    expect(() => accountId('not-a-uuid', 'live', '1100')).toThrow();
    expect(() => accountId(ORG, 'prod' as never, '1100')).toThrow();
  });

  it('answers again from memory, never for arguments that only spell alike', () => {
    const id = accountId(ORG, 'test', 'a/b');
    expect(accountId(ORG, 'test', 'a/b')).toBe(id);
    expect(accountId(ORG, 'test', 'a/b')).toBe(uuidV5(`${ORG.toLowerCase()}/test/a/b`, LEDGER_ACCOUNT_NAMESPACE));
    expect(() => accountId(`${ORG}/test`, 'test', 'b')).toThrow();
    expect(() => accountId(ORG, 'test/a' as never, 'b')).toThrow();
  });
});

describe('DEFAULT_CHART', () => {
  it('is the chart of API-DECISIONS §7', () => {
    expect(DEFAULT_CHART.map((a) => [a.code, a.name, a.type, a.subtype])).toEqual([
      ['1000', 'Cash', 'asset', 'cash'],
      ['1010', 'Operating bank', 'asset', 'bank'],
      ['1100', 'Accounts Receivable', 'asset', 'receivable'],
      ['1200', 'Processor clearing', 'asset', 'clearing'],
      ['2000', 'Accounts Payable', 'liability', 'payable'],
      ['4000', 'Revenue', 'revenue', null],
      ['5000', 'Expenses', 'expense', null],
      ['5200', 'Processor fees', 'expense', null],
    ]);
    expect(new Set(Object.values(ACCOUNT))).toEqual(new Set(DEFAULT_CHART.map((a) => a.code)));
    expect(Object.isFrozen(DEFAULT_CHART) && Object.isFrozen(DEFAULT_CHART[0])).toBe(true);
  });

  it('finds accounts by code', () => {
    expect(findAccount('5200')?.name).toBe('Processor fees');
    expect(findAccount('9999')).toBeUndefined();
  });
});

describe('normalBalance', () => {
  it('is debit for assets and expenses, credit otherwise', () => {
    expect(normalBalance('asset')).toBe('debit');
    expect(normalBalance('expense')).toBe('debit');
    expect(normalBalance('liability')).toBe('credit');
    expect(normalBalance('equity')).toBe('credit');
    expect(normalBalance('revenue')).toBe('credit');
  });
});

describe('findAccountById', () => {
  it('finds an account of the chart by its stable id in the organization and environment, in any case', () => {
    const id = accountId(ORG, 'test', '1010');
    expect(findAccountById(ORG, 'test', id)?.code).toBe('1010');
    expect(findAccountById(ORG, 'test', id.toUpperCase())?.code).toBe('1010');
  });

  it("does not find another organization's or environment's account, nor a random id", () => {
    const id = accountId(ORG, 'test', '5000');
    expect(findAccountById(ORG, 'live', id)).toBeUndefined();
    expect(findAccountById('0b6f1f5e-8a53-4a8e-9d4e-2f1c3b0a9e11', 'test', id)).toBeUndefined();
    expect(findAccountById(ORG, 'test', '7d9f6c1e-2b1a-4f3e-9c8d-0a1b2c3d4e5f')).toBeUndefined();
  });
});
