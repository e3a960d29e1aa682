import { assertCents, lineAmountCents, LedgerError, sumCents } from './money';

describe('lineAmountCents', () => {
  it.each([
    [0.5, 1, 1],
    [1.005, 100, 101],
    [2.675, 100, 268],
    [0.0001, 4999, 0],
    [0.0001, 5000, 1],
    [0.0001, 15000, 2],
    [3, 333, 999],
    [1.5, 3, 5],
    [2.5, 1, 3],
    [1, 0, 0],
    [1234.5678, 9999, 12344443], // 12344443.4322
  ])('%p × %p = %p (half away from zero)', (q, unit, expected) => {
    expect(lineAmountCents(q, unit)).toBe(expected);
  });

  it('rounds half away from zero for negative products too', () => {
    expect(lineAmountCents(-0.5, 1)).toBe(-1);
    expect(lineAmountCents(2.5, -1)).toBe(-3);
    expect(lineAmountCents(-0.0001, 4999)).toBe(0);
  });

  it('stays exact for large amounts', () => {
    expect(lineAmountCents(10000, 10_000_000)).toBe(100_000_000_000);
    expect(lineAmountCents(9999.9999, 100_000_000_000)).toBe(999_999_990_000_000);
    // Float multiply would give 1.1 × 3 = 3.3000000000000003; exact arithmetic does not drift.
    expect(lineAmountCents(1.1, 3)).toBe(3);
  });

  it('refuses more than 4 decimals, non-finite quantities and fractional cents', () => {
    for (const q of [0.00001, 1.23456, Number.NaN, Number.POSITIVE_INFINITY, 1e-7, 1e21]) {
      expect(() => lineAmountCents(q, 100)).toThrow(expect.objectContaining({ code: 'bad_quantity' }));
    }
    expect(() => lineAmountCents(1, 1.5)).toThrow(expect.objectContaining({ code: 'bad_amount' }));
  });

  it('refuses a result outside the safe integer range', () => {
    expect(() => lineAmountCents(10_000_000, Number.MAX_SAFE_INTEGER)).toThrow(LedgerError);
  });
});

describe('sumCents', () => {
  it('adds whole cents', () => {
    expect(sumCents([])).toBe(0);
    expect(sumCents([1, 2, 3])).toBe(6);
    expect(sumCents(new Array(90_000).fill(100_000_000_000))).toBe(9_000_000_000_000_000);
  });

  it('refuses fractions and totals beyond the safe range', () => {
    expect(() => sumCents([1, 0.5])).toThrow(expect.objectContaining({ code: 'bad_amount' }));
    expect(() => sumCents([Number.MAX_SAFE_INTEGER, 1])).toThrow(expect.objectContaining({ code: 'bad_amount' }));
  });
});

describe('assertCents', () => {
  it('accepts safe non-negative integers only', () => {
    expect(() => assertCents(0)).not.toThrow();
    expect(() => assertCents(100_000_000_000)).not.toThrow();
    for (const v of [-1, 1.5, Number.MAX_SAFE_INTEGER + 1, '100', null, Number.NaN]) {
      expect(() => assertCents(v)).toThrow(LedgerError);
    }
  });
});
