import { agingSeries, cashPosition, entryBalances, entryTotal, isDay, lastMonths, linesText, monthsBetween, partyRows, topWithOthers, trialBalanceRows } from './shaping';
import type { Account } from './types';

describe('month periods for revenue by month', () => {
  it('gives the last twelve months oldest first, each from its first to its last day', () => {
    const months = lastMonths(new Date('2026-11-28T23:30:00Z'));
    expect(months).toHaveLength(12);
    expect(months[0]).toEqual({ key: '2025-12', label: 'Dec 2025', from: '2025-12-01', to: '2025-12-31' });
    expect(months[11]).toEqual({ key: '2026-11', label: 'Nov 2026', from: '2026-11-01', to: '2026-11-30' });
    expect(months.map((m) => m.to)).toContain('2026-02-28');
  });

  it('crosses years and leap Februaries', () => {
    const months = lastMonths(new Date('2028-03-01T00:00:00Z'), 3);
    expect(months.map((m) => [m.from, m.to])).toEqual([
      ['2028-01-01', '2028-01-31'],
      ['2028-02-01', '2028-02-29'],
      ['2028-03-01', '2028-03-31'],
    ]);
  });
});

describe('dates typed into report inputs', () => {
  it('accepts real calendar dates only', () => {
    expect(isDay('2026-02-28')).toBe(true);
    expect(isDay('2026-02-30')).toBe(false);
    expect(isDay('2026-2-3')).toBe(false);
    expect(isDay('')).toBe(false);
  });
});

describe('aging buckets', () => {
  it('orders the buckets current first and fills a missing one with 0', () => {
    expect(agingSeries({ current: 5, days_1_30: 4, days_31_60: 3, days_61_90: 2, days_over_90: 1 })).toEqual([5, 4, 3, 2, 1]);
    expect(agingSeries({ days_over_90: 7 })).toEqual([0, 0, 0, 0, 7]);
    expect(agingSeries(undefined)).toEqual([0, 0, 0, 0, 0]);
  });

  it('lists parties largest balance first under one id name', () => {
    const aging = { current: 0, days_1_30: 0, days_31_60: 0, days_61_90: 0, days_over_90: 0 };
    const rows = partyRows(
      [
        { customer_id: 'a', display_name: 'A', open_cents: 100, aging },
        { customer_id: 'b', display_name: null, open_cents: 300, aging },
      ],
      (c) => c.customer_id,
    );
    expect(rows.map((r) => [r.id, r.open_cents])).toEqual([
      ['b', 300],
      ['a', 100],
    ]);
  });
});

describe('cash position', () => {
  const acct = (code: string, subtype: string | null, balance: number, type = 'asset'): Account => ({
    id: code,
    code,
    name: code,
    type,
    subtype,
    normal_balance: 'debit',
    balance_cents: balance,
  });
  it('sums cash and bank on hand, clearing in transit, ignoring other accounts', () => {
    const p = cashPosition([acct('1100', 'receivable', 999), acct('1200', 'clearing', 50), acct('1010', 'bank', 200), acct('1000', 'cash', 100), acct('4000', null, 1, 'revenue')]);
    expect(p.accounts.map((a) => a.code)).toEqual(['1000', '1010', '1200']);
    expect(p.onHandCents).toBe(300);
    expect(p.inTransitCents).toBe(50);
  });
});

describe('journal entries', () => {
  const entry = {
    lines: [
      { account_id: 'x', account_code: '1100', side: 'debit' as const, amount_cents: 12500 },
      { account_id: 'y', account_code: '4000', side: 'credit' as const, amount_cents: 12500 },
    ],
  };
  it('totals the debits, checks the balance and writes the lines as text', () => {
    expect(entryTotal(entry)).toBe(12500);
    expect(entryBalances(entry)).toBe(true);
    expect(entryBalances({ lines: entry.lines.slice(0, 1) })).toBe(false);
    expect(linesText(entry, (c) => (c / 100).toFixed(2))).toBe('Dr 1100 125.00; Cr 4000 125.00');
  });
});

describe('report shaping', () => {
  it('keeps the trial balance accounts that moved, by code', () => {
    const rows = trialBalanceRows({
      accounts: [
        { account_id: '2', code: '4000', name: 'Revenue', type: 'revenue', debit_cents: 0, credit_cents: 10 },
        { account_id: '3', code: '5000', name: 'Expenses', type: 'expense', debit_cents: 0, credit_cents: 0 },
        { account_id: '1', code: '1100', name: 'A/R', type: 'asset', debit_cents: 10, credit_cents: 0 },
      ],
    });
    expect(rows.map((r) => r.code)).toEqual(['1100', '4000']);
  });

  it('keeps the largest values and sums the rest under Others', () => {
    const rows = [1, 5, 3, 4, 2].map((n) => ({ n }));
    expect(
      topWithOthers(
        rows,
        (r) => `v${r.n}`,
        (r) => r.n,
        2,
      ),
    ).toEqual({ labels: ['v5', 'v4', 'Others (3)'], data: [5, 4, 6] });
    expect(
      topWithOthers(
        rows.slice(0, 2),
        (r) => `v${r.n}`,
        (r) => r.n,
        2,
      ),
    ).toEqual({ labels: ['v5', 'v1'], data: [5, 1] });
  });
});

describe('months of a report period', () => {
  it('clips the first and last month to the period', () => {
    expect(monthsBetween('2026-01-15', '2026-03-10').map((m) => [m.key, m.from, m.to])).toEqual([
      ['2026-01', '2026-01-15', '2026-01-31'],
      ['2026-02', '2026-02-01', '2026-02-28'],
      ['2026-03', '2026-03-01', '2026-03-10'],
    ]);
  });

  it('keeps the last months of a long period and refuses a reversed or malformed one', () => {
    const months = monthsBetween('2020-01-01', '2026-12-31', 24);
    expect(months).toHaveLength(24);
    expect(months[0]!.key).toBe('2025-01');
    expect(monthsBetween('2026-03-01', '2026-01-01')).toEqual([]);
    expect(monthsBetween('2026-13-01', '2026-12-01')).toEqual([]);
  });
});
