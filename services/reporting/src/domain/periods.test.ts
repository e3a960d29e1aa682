import { STATEMENT_COLUMNS_MAX } from '@acct/contracts';
import { balanceSheetDates, fiscalYearStart, periodColumns, previousFiscalYearEnd } from './periods';

describe('fiscal years', () => {
  it('start on the first day of the start month on or before the date, for every start month', () => {
    const starts = Array.from({ length: 12 }, (_, i) => fiscalYearStart('2026-06-15', i + 1));
    expect(starts).toEqual([
      '2026-01-01',
      '2026-02-01',
      '2026-03-01',
      '2026-04-01',
      '2026-05-01',
      '2026-06-01',
      '2025-07-01',
      '2025-08-01',
      '2025-09-01',
      '2025-10-01',
      '2025-11-01',
      '2025-12-01',
    ]);
  });

  it('end the day before the next one starts, February 29 in leap years', () => {
    expect(previousFiscalYearEnd('2024-03-01', 3)).toBe('2024-02-29');
    expect(previousFiscalYearEnd('2023-03-01', 3)).toBe('2023-02-28');
    expect(previousFiscalYearEnd('2000-03-15', 3)).toBe('2000-02-29');
    expect(previousFiscalYearEnd('1900-03-15', 3)).toBe('1900-02-28'); // 1900 is not a leap year
    expect(previousFiscalYearEnd('2024-02-29', 3)).toBe('2023-02-28');
    expect(fiscalYearStart('2024-02-29', 3)).toBe('2023-03-01');
  });

  it('hold the edge dates 1900-01-01 and 9999-12-31', () => {
    expect(fiscalYearStart('1900-01-01', 1)).toBe('1900-01-01');
    expect(previousFiscalYearEnd('1900-01-01', 1)).toBe('1899-12-31');
    expect(fiscalYearStart('1900-01-01', 7)).toBe('1899-07-01');
    expect(fiscalYearStart('9999-12-31', 1)).toBe('9999-01-01');
    expect(previousFiscalYearEnd('9999-12-31', 12)).toBe('9999-11-30');
  });
});

describe('period columns', () => {
  it('total is the period itself', () => {
    expect(periodColumns('1900-01-01', '9999-12-31', 'total', 1)).toEqual([{ from: '1900-01-01', to: '9999-12-31' }]);
  });

  it('months are cut to from and to, February 29 included', () => {
    expect(periodColumns('2024-01-15', '2024-03-10', 'month', 1)).toEqual([
      { from: '2024-01-15', to: '2024-01-31' },
      { from: '2024-02-01', to: '2024-02-29' },
      { from: '2024-03-01', to: '2024-03-10' },
    ]);
  });

  it('quarters and years follow the fiscal year', () => {
    expect(periodColumns('2026-01-01', '2026-12-31', 'quarter', 2)).toEqual([
      { from: '2026-01-01', to: '2026-01-31' },
      { from: '2026-02-01', to: '2026-04-30' },
      { from: '2026-05-01', to: '2026-07-31' },
      { from: '2026-08-01', to: '2026-10-31' },
      { from: '2026-11-01', to: '2026-12-31' },
    ]);
    expect(periodColumns('2025-03-01', '2026-12-31', 'year', 7)).toEqual([
      { from: '2025-03-01', to: '2025-06-30' },
      { from: '2025-07-01', to: '2026-06-30' },
      { from: '2026-07-01', to: '2026-12-31' },
    ]);
    expect(periodColumns('9990-01-01', '9999-12-31', 'year', 1)).toHaveLength(10);
    expect(periodColumns('9999-06-01', '9999-12-31', 'year', 7).at(-1)).toEqual({ from: '9999-07-01', to: '9999-12-31' });
  });

  it('columns cover [from, to] without gap or overlap for every start month and kind', () => {
    for (let m = 1; m <= 12; m++)
      for (const kind of ['month', 'quarter', 'year'] as const) {
        const cols = periodColumns('2023-02-17', '2025-11-03', kind, m);
        expect(cols[0]!.from).toBe('2023-02-17');
        expect(cols.at(-1)!.to).toBe('2025-11-03');
        for (let i = 1; i < cols.length; i++) expect(previousFiscalYearEnd(`${cols[i]!.from.slice(0, 8)}01`, 1) <= cols[i - 1]!.to).toBe(true);
        for (let i = 1; i < cols.length; i++) expect(Date.parse(cols[i]!.from) - Date.parse(cols[i - 1]!.to)).toBe(86_400_000);
      }
  });

  it('more columns than the maximum is 400 validation_failed naming columns', () => {
    expect(() => periodColumns('1900-01-01', '9999-12-31', 'month', 1)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    expect(periodColumns('2000-01-01', '2000-01-01', 'month', 1)).toHaveLength(1);
    const months = STATEMENT_COLUMNS_MAX;
    const to = `${String(2000 + Math.floor((months - 1) / 12)).padStart(4, '0')}-${String(((months - 1) % 12) + 1).padStart(2, '0')}-01`;
    expect(periodColumns('2000-01-01', to, 'month', 1)).toHaveLength(months);
  });
});

describe('balance sheet dates', () => {
  it('month and quarter: the period ends of as_of’s fiscal year before it, then as_of', () => {
    expect(balanceSheetDates('2026-05-15', 'month', 1)).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-15']);
    expect(balanceSheetDates('2026-05-15', 'quarter', 4)).toEqual(['2026-05-15']);
    expect(balanceSheetDates('2026-09-30', 'quarter', 4)).toEqual(['2026-06-30', '2026-09-30']);
    expect(balanceSheetDates('2026-05-15', 'total', 4)).toEqual(['2026-05-15']);
  });

  it('year: the ends of the four fiscal years before, none before 1900', () => {
    expect(balanceSheetDates('2026-05-15', 'year', 7)).toEqual(['2022-06-30', '2023-06-30', '2024-06-30', '2025-06-30', '2026-05-15']);
    expect(balanceSheetDates('1901-05-15', 'year', 1)).toEqual(['1900-12-31', '1901-05-15']);
    expect(balanceSheetDates('9999-12-31', 'year', 1)).toEqual(['9995-12-31', '9996-12-31', '9997-12-31', '9998-12-31', '9999-12-31']);
  });
});
