import { caught } from '@acct/testing';
import { DEFAULT_CHART, accountId } from '@acct/ledger';
import { aging, agingReport, bucketOf, chartWithTotals, checkPeriod, form1099, parseYear, reportingYear, threshold1099, trialBalance } from './reports';

const ORG = '6f1c0f2e-8a55-4c1e-9a53-2a3f1f0c9b11';

describe('aging', () => {
  it('puts an amount due on as_of or later in current, then 1-30 … over 90 by days late', () => {
    expect(bucketOf('2025-03-31', '2025-03-31')).toBe('current');
    expect(bucketOf('2025-04-30', '2025-03-31')).toBe('current');
    expect(bucketOf('2025-03-30', '2025-03-31')).toBe('days_1_30');
    expect(bucketOf('2025-03-01', '2025-03-31')).toBe('days_1_30');
    expect(bucketOf('2025-02-28', '2025-03-31')).toBe('days_31_60');
    expect(bucketOf('2025-01-30', '2025-03-31')).toBe('days_31_60'); // 60 days
    expect(bucketOf('2025-01-29', '2025-03-31')).toBe('days_61_90');
    expect(bucketOf('2024-12-31', '2025-03-31')).toBe('days_61_90'); // 90 days
    expect(bucketOf('2024-12-30', '2025-03-31')).toBe('days_over_90');
    expect(bucketOf('2024-12-31', '2025-01-01')).toBe('days_1_30'); // across a year boundary
    expect(bucketOf(null, '2025-01-01')).toBe('current');
  });

  it('ages the ends of the date range: due 9999-12-31 is current at any as_of, due 1900-01-01 over 90 from 1900-04-02', () => {
    for (const asOf of ['1900-01-01', '2026-03-31', '9999-12-31']) expect(bucketOf('9999-12-31', asOf)).toBe('current');
    expect(bucketOf('1900-01-01', '1900-01-01')).toBe('current');
    expect(bucketOf('1900-01-01', '1900-01-31')).toBe('days_1_30');
    expect(bucketOf('1900-01-01', '1900-04-01')).toBe('days_61_90'); // 90 days: 1900 is no leap year
    expect(bucketOf('1900-01-01', '1900-04-02')).toBe('days_over_90');
    expect(bucketOf('1900-01-01', '9999-12-31')).toBe('days_over_90');
    expect(bucketOf('9999-10-02', '9999-12-31')).toBe('days_61_90');
  });

  it('totals open documents per party; a fully paid document and a party at zero do not count', () => {
    const r = aging(
      [
        { partyId: 'a', displayName: 'A', openCents: 10_000, dueDate: '2025-01-15' },
        { partyId: 'a', displayName: 'A', openCents: 2_500, dueDate: '2024-09-01' },
        { partyId: 'b', displayName: 'B', openCents: 0, dueDate: '2025-01-01' },
      ],
      '2025-01-15',
    );
    expect(r.totalOpenCents).toBe(12_500);
    expect(r.partyCount).toBe(1);
    expect(r.aging).toEqual({ current: 10_000, days_1_30: 0, days_31_60: 0, days_61_90: 0, days_over_90: 2_500 });
    expect(r.rows).toEqual([{ party_id: 'a', display_name: 'A', open_cents: 12_500, aging: r.aging }]);
  });
});

describe('1099 summary', () => {
  it('uses 60000 cents up to 2025 and 200000 cents from 2026', () => {
    expect(threshold1099(2025)).toBe(60_000);
    expect(threshold1099(2026)).toBe(200_000);
  });

  it('counts eligible vendors at or over the threshold; ineligible ones are listed only on request and never totalled', () => {
    const vendors = [
      { vendorId: 'v1', displayName: 'At', eligible: true, w9OnFile: false, paidCents: 60_000 },
      { vendorId: 'v2', displayName: 'Under', eligible: true, w9OnFile: true, paidCents: 59_999 },
      { vendorId: 'v3', displayName: 'Ineligible', eligible: false, w9OnFile: false, paidCents: 900_000 },
      { vendorId: 'v4', displayName: 'Over', eligible: true, w9OnFile: true, paidCents: 70_000 },
    ];
    const r = form1099(2025, vendors, false);
    expect(r).toMatchObject({ reporting_year: 2025, threshold_cents: 60_000, total_reportable_paid_cents: 130_000, eligible_vendor_count: 2, missing_w9_count: 1 });
    expect(r.vendors.map((v) => v.vendor_id)).toEqual(['v4', 'v1', 'v2']);
    const all = form1099(2025, vendors, true);
    expect(all.total_reportable_paid_cents).toBe(130_000);
    expect(all.vendors.find((v) => v.vendor_id === 'v3')).toMatchObject({ is_1099_eligible: false, reportable: false });
    // The same payments in 2026 are under the new threshold.
    expect(form1099(2026, vendors, false)).toMatchObject({ total_reportable_paid_cents: 0, eligible_vendor_count: 0 });
  });

  it('counts a vendor made eligible later (eligibility is the vendor as it is now)', () => {
    expect(form1099(2025, [{ vendorId: 'v', displayName: null, eligible: true, w9OnFile: true, paidCents: 80_000 }], false).eligible_vendor_count).toBe(1);
  });

  it('accepts 4-digit years from 1900 only', () => {
    expect(parseYear('2025')).toBe(2025);
    expect(parseYear('1899')).toBeNull();
    expect(parseYear('20255')).toBeNull();
    expect(parseYear('abcd')).toBeNull();
  });
});

describe('chart and trial balance', () => {
  it('lists the whole default chart with stable ids and balances on the normal side', () => {
    const totals = new Map([
      ['1100', { debitCents: 10_000, creditCents: 4_000 }],
      ['4000', { debitCents: 0, creditCents: 10_000 }],
      ['1000', { debitCents: 4_000, creditCents: 0 }],
    ]);
    const accounts = chartWithTotals(ORG, 'test', totals);
    expect(accounts.map((a) => a.code)).toEqual(DEFAULT_CHART.map((a) => a.code));
    expect(accounts.find((a) => a.code === '1100')).toMatchObject({ id: accountId(ORG, 'test', '1100'), balance_cents: 6_000, normal_balance: 'debit' });
    expect(accounts.find((a) => a.code === '4000')).toMatchObject({ balance_cents: 10_000, normal_balance: 'credit' });
    const tb = trialBalance(accounts);
    expect(tb).toMatchObject({ total_debit_cents: 10_000, total_credit_cents: 10_000, balanced: true });
    expect(tb.accounts.find((a) => a.code === '4000')).toMatchObject({ debit_cents: 0, credit_cents: 10_000 });
  });
});

describe('request checks', () => {
  it('refuses a period whose from is after its to, naming from; a missing end bounds nothing', () => {
    expect(() => checkPeriod('2026-01-01', '2026-01-01')).not.toThrow();
    expect(() => checkPeriod(undefined, '2026-01-01')).not.toThrow();
    expect(() => checkPeriod('2026-02-01', undefined)).not.toThrow();
    expect(caught(() => checkPeriod('2026-02-01', '2026-01-01'))).toMatchObject({ code: 'validation_failed', details: [{ field: 'from', issue: 'invalid' }] });
  });

  it('takes a 1099 year of four digits from 1900 to 9999, naming year otherwise', () => {
    expect(reportingYear('2026')).toBe(2026);
    expect(caught(() => reportingYear('1200'))).toMatchObject({ code: 'validation_failed', details: [{ field: 'year', issue: 'invalid' }] });
    expect(caught(() => reportingYear('20261')).code).toBe('validation_failed');
  });
});

describe('aging report', () => {
  it('names the party fields for its side and keeps the documented field order', () => {
    const r = aging([{ partyId: 'p1', displayName: 'Acme', openCents: 500, dueDate: '2025-03-01' }], '2025-03-31');
    const ap = agingReport('vendor', '2025-03-31', r);
    expect(Object.keys(ap)).toEqual(['as_of', 'total_open_cents', 'vendor_count', 'aging', 'vendors']);
    expect(ap.vendors).toEqual([{ vendor_id: 'p1', display_name: 'Acme', open_cents: 500, aging: expect.objectContaining({ days_1_30: 500 }) }]);
    expect(Object.keys(ap.vendors[0]!)).toEqual(['vendor_id', 'display_name', 'open_cents', 'aging']);
    const ar = agingReport('customer', '2025-03-31', r);
    expect(Object.keys(ar)).toEqual(['as_of', 'total_open_cents', 'customer_count', 'aging', 'customers']);
    expect(ar).toMatchObject({ customer_count: 1, customers: [{ customer_id: 'p1' }] });
  });
});
