import { AppError, limits, type LineItemInput } from '@acct/contracts';
import { currencyOf, priceLines, quantityOk, SUPPORTED_CURRENCIES } from './lines';
import { caught } from '@acct/testing';

const item = (quantity: number, unit_amount_cents: number, description = 'Work'): LineItemInput => ({ description, quantity, unit_amount_cents });

describe('priceLines', () => {
  it.each([
    [1.5, 333, 500], // 499.5 rounds up
    [0.5, 1, 1], // 0.5 rounds away from zero
    [2.675, 100, 268], // 267.5 rounds up
    [0.0001, 4999, 0], // 0.4999 rounds down
    [1.005, 100, 101], // float 1.005*100 is 100.49999…; the exact decimal 100.5 rounds up
    [1.255, 100, 126], // float 1.255*100 is 125.49999…
    [3, 1250, 3750],
    [0.0001, 5000, 1], // exactly half a cent
  ])('prices %p × %p as %p cents', (quantity, unit, expected) => {
    const { lines, totalCents } = priceLines([item(quantity, unit)]);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.amount_cents).toBe(expected);
    expect(totalCents).toBe(expected);
  });

  it('keeps description, quantity and unit amount and sums the line amounts into the total', () => {
    const { lines, totalCents } = priceLines([item(1.5, 333, 'A'), item(0.5, 1, 'B'), item(2.675, 100, 'C'), item(0.0001, 4999, 'D')]);
    expect(lines).toEqual([
      { description: 'A', quantity: 1.5, unit_amount_cents: 333, amount_cents: 500 },
      { description: 'B', quantity: 0.5, unit_amount_cents: 1, amount_cents: 1 },
      { description: 'C', quantity: 2.675, unit_amount_cents: 100, amount_cents: 268 },
      { description: 'D', quantity: 0.0001, unit_amount_cents: 4999, amount_cents: 0 },
    ]);
    expect(totalCents).toBe(500 + 1 + 268 + 0);
  });

  it('does not mutate its input', () => {
    const items = [item(1.5, 333)];
    const copy = JSON.parse(JSON.stringify(items));
    priceLines(items);
    expect(items).toEqual(copy);
  });

  it('refuses a quantity with 5 decimals, pointing at the line', () => {
    const err = caught(() => priceLines([item(1, 100), item(1.00001, 100)]));
    expect(err.code).toBe('validation_failed');
    expect(err.details).toHaveLength(1);
    expect(err.details[0]).toMatchObject({ field: '/line_items/1/quantity', issue: 'invalid_format' });
  });

  it('reports every bad quantity, each with its own index', () => {
    const err = caught(() => priceLines([item(1.00001, 100), item(2, 100), item(0, 100), item(-1, 100)]));
    expect(err.code).toBe('validation_failed');
    expect(err.details.map((d) => d.field)).toEqual(['/line_items/0/quantity', '/line_items/2/quantity', '/line_items/3/quantity']);
  });

  it('accepts a total of exactly the amount limit', () => {
    expect(priceLines([item(1, limits.amount_cents_max)]).totalCents).toBe(100_000_000_000);
    expect(priceLines([item(1, 60_000_000_000), item(1, 40_000_000_000)]).totalCents).toBe(100_000_000_000);
  });

  it('refuses a total above 100,000,000,000 cents', () => {
    // one line over the limit is named by its index
    const one = caught(() => priceLines([item(1, 1), item(1, 100_000_000_001)]));
    expect(one.code).toBe('validation_failed');
    expect(one.details[0]).toMatchObject({ field: '/line_items/1', issue: 'out_of_range' });

    // each line is under the limit, the sum is not
    const sum = caught(() => priceLines([item(1, 60_000_000_000), item(1, 40_000_000_001)]));
    expect(sum.code).toBe('validation_failed');
    expect(sum.details[0]).toMatchObject({ field: '/line_items', issue: 'out_of_range' });

    // via the quantity: 2 × 50,000,000,001
    expect(caught(() => priceLines([item(2, 50_000_000_001)])).code).toBe('validation_failed');
  });

  it('refuses a line amount beyond 2^53 as validation_failed naming the line, not a LedgerError', () => {
    // 100,000 × 100,000,000,000 = 10^16 cents: past Number.MAX_SAFE_INTEGER, where lineAmountCents throws.
    const e = caught(() => priceLines([item(1, 5), item(100_000, limits.amount_cents_max)]));
    expect(e).toBeInstanceOf(AppError);
    expect(e.code).toBe('validation_failed');
    expect(e.details).toEqual([expect.objectContaining({ field: '/line_items/1', issue: 'out_of_range' })]);
  });
});

describe('quantityOk', () => {
  it.each([1, 2, 0.5, 1.5, 0.0001, 1.0001, 2.675, 999_999_999.9999, 1_000_000_000])('accepts %p', (q) => {
    expect(quantityOk(q)).toBe(true);
  });

  it.each([0, -1, -0.5, 1.00001, 0.00001, 1e-7, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])('refuses %p', (q) => {
    expect(quantityOk(q)).toBe(false);
  });
});

describe('currencyOf', () => {
  it('defaults to USD', () => {
    expect(currencyOf(undefined)).toBe('USD');
  });

  it('accepts USD', () => {
    expect(currencyOf('USD')).toBe('USD');
    expect(SUPPORTED_CURRENCIES).toEqual(['USD']);
  });

  it.each(['EUR', 'usd', 'GBP', ''])('refuses %p, saying only USD is accepted', (c) => {
    const err = caught(() => currencyOf(c));
    expect(err.code).toBe('validation_failed');
    expect(err.message).toContain('USD');
    expect(err.details).toHaveLength(1);
    expect(err.details[0]).toMatchObject({ field: '/currency', issue: 'unsupported_currency' });
    expect(err.details[0]?.message).toContain('USD');
  });

  it('names the refused currency in the message', () => {
    expect(caught(() => currencyOf('EUR')).message).toContain('EUR');
  });
});
