import type { EstimateDto } from '@acct/contracts';
import { DEFAULT_BRAND_COLOR, addDays, estimateView, formatCents, invoiceView } from './view';
import { invoice, settings } from './fixtures.test-data';

describe('record views', () => {
  it('formats cents as dollars with separators, exactly', () => {
    expect(formatCents(0)).toBe('$0.00');
    expect(formatCents(5)).toBe('$0.05');
    expect(formatCents(123456)).toBe('$1,234.56');
    expect(formatCents(100_000_000_000)).toBe('$1,000,000,000.00');
    expect(formatCents(-2550)).toBe('-$25.50');
    expect(formatCents(100, 'EUR')).toBe('1.00 EUR');
  });

  it('adds days across month and leap-year ends', () => {
    expect(addDays('2026-01-31', 1)).toBe('2026-02-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('9999-12-31', 30)).toBe('9999-12-31'); // an estimate issued on the last date
    expect(addDays('9999-12-01', 30)).toBe('9999-12-31');
    expect(addDays('2026-12-31', 30)).toBe('2027-01-30');
  });

  it('shows an invoice with its balance, defaults for memo, terms and footer, and the brand', () => {
    const v = invoiceView(invoice, settings);
    expect(v.title).toBe('Invoice');
    expect(v.number).toBe('INV-0042');
    expect(v.status).toBe('Partially paid');
    expect(v.balanceDue).toBe('$1,000.00');
    expect(v.totals.map((t) => t.value)).toEqual(['$1,384.56', '$384.56', '$1,000.00']);
    expect(v.lines[0]).toEqual({ description: 'Consulting', quantity: '1.5', unit: '$100.00', amount: '$150.00' });
    expect(v).toMatchObject({ terms: 'Net 15', memo: 'Thanks!', footer: 'Acme Inc., 1 Main St', business: { name: 'Acme Books', color: '#aa0000' } });
    expect(invoiceView({ ...invoice, memo: 'Own memo' }, settings).memo).toBe('Own memo');
    expect(invoiceView(invoice, { ...settings, branding: { ...settings.branding, primary_color: null } }).business.color).toBe(DEFAULT_BRAND_COLOR);
  });

  it('shows a void invoice as Void, with its void date, nothing due and no payment instructions', () => {
    const v = invoiceView({ ...invoice, status: 'void', amount_paid_cents: 0, balance_due_cents: 0, void_date: '2026-11-20' }, settings);
    expect(v.status).toBe('Void');
    expect(v.balanceDue).toBe('$0.00');
    expect(v.dates).toEqual([
      { label: 'Issue date', value: invoice.issue_date },
      { label: 'Due date', value: invoice.due_date },
      { label: 'Void date', value: '2026-11-20' },
    ]);
    expect(v.business.instructions).toBeNull();
    expect(invoiceView(invoice, settings).business.instructions).not.toBeNull();
  });

  it('shows an estimate valid until its expiry date, else issue date + the validity days', () => {
    const est: EstimateDto = { ...invoice, external_estimate_id: 'EST-7', status: 'sent', expiry_date: null };
    const v = estimateView(est, settings);
    expect(v).toMatchObject({ title: 'Estimate', number: 'EST-7', balanceDue: null, terms: 'Valid 10 days', footer: null });
    expect(v.dates).toEqual([
      { label: 'Issue date', value: '2026-11-01' },
      { label: 'Valid until', value: '2026-11-11' },
    ]);
    expect(estimateView({ ...est, expiry_date: '2026-11-20' }, settings).dates[1]!.value).toBe('2026-11-20');
  });
});
