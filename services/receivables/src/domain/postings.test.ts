import { ACCOUNT, buildEntry, totals } from '@acct/ledger';
import { invoicePosting, paymentPosting, payoutPosting } from './postings';

const INVOICE = '11111111-1111-4111-8111-111111111111';
const CUSTOMER = '22222222-2222-4222-8222-222222222222';
const PAYMENT = '33333333-3333-4333-8333-333333333333';
const PAYOUT = '44444444-4444-4444-8444-444444444444';

describe('invoicePosting', () => {
  const draft = invoicePosting({ id: INVOICE, customerId: CUSTOMER, issueDate: '2026-03-01', totalCents: 12_345, invoiceNumber: 'INV-7' });

  it('debits receivable and credits revenue for the total, on the issue date', () => {
    expect(draft).toMatchObject({ entryDate: '2026-03-01', sourceType: 'invoice', sourceId: INVOICE, memo: 'Invoice INV-7' });
    expect(draft.lines).toEqual([
      { accountCode: '1100', side: 'debit', amountCents: 12_345, customerId: CUSTOMER, invoiceId: INVOICE },
      { accountCode: '4000', side: 'credit', amountCents: 12_345, customerId: CUSTOMER, invoiceId: INVOICE },
    ]);
    expect(ACCOUNT.receivable).toBe('1100');
    expect(ACCOUNT.revenue).toBe('4000');
  });

  it('passes buildEntry unchanged (balanced)', () => {
    const e = buildEntry(draft);
    expect(e).toEqual(draft);
    expect(totals(e.lines)).toEqual({ debitCents: 12_345, creditCents: 12_345 });
  });
});

describe('paymentPosting', () => {
  const payment = (source: 'manual' | 'processor') =>
    paymentPosting({ id: PAYMENT, invoiceId: INVOICE, customerId: CUSTOMER, amountCents: 600, receivedDate: '2026-03-02', source });

  it.each([
    ['manual', '1000'],
    ['processor', '1200'],
  ] as const)('a %s payment debits %s and credits receivable', (source, debitAccount) => {
    const draft = payment(source);
    expect(draft).toMatchObject({ entryDate: '2026-03-02', sourceType: 'payment', sourceId: PAYMENT });
    expect(draft.lines).toEqual([
      { accountCode: debitAccount, side: 'debit', amountCents: 600, customerId: CUSTOMER, invoiceId: INVOICE },
      { accountCode: '1100', side: 'credit', amountCents: 600, customerId: CUSTOMER, invoiceId: INVOICE },
    ]);
    const e = buildEntry(draft);
    expect(e).toEqual(draft);
    expect(totals(e.lines)).toEqual({ debitCents: 600, creditCents: 600 });
  });

  it('uses the payment id as the source, not the invoice id', () => {
    expect(payment('manual').sourceId).toBe(PAYMENT);
    expect(ACCOUNT.cash).toBe('1000');
    expect(ACCOUNT.processorClearing).toBe('1200');
  });
});

describe('payoutPosting', () => {
  it('debits bank with net and fees with fee, and credits clearing with gross', () => {
    const draft = payoutPosting({ id: PAYOUT, payoutDate: '2026-03-05', grossCents: 1000, feeCents: 30, netCents: 970, processor: 'stripe' });
    expect(draft).toMatchObject({ entryDate: '2026-03-05', sourceType: 'processor_payout', sourceId: PAYOUT, memo: 'stripe payout' });
    expect(draft.lines).toEqual([
      { accountCode: '1010', side: 'debit', amountCents: 970 },
      { accountCode: '5200', side: 'debit', amountCents: 30 },
      { accountCode: '1200', side: 'credit', amountCents: 1000 },
    ]);
    for (const l of draft.lines) {
      expect(l.customerId ?? null).toBeNull();
      expect(l.invoiceId ?? null).toBeNull();
    }
    const e = buildEntry(draft);
    expect(e).toEqual(draft);
    expect(totals(e.lines)).toEqual({ debitCents: 1000, creditCents: 1000 });
  });

  it('still balances with a zero fee, once buildEntry drops the zero line', () => {
    const draft = payoutPosting({ id: PAYOUT, payoutDate: '2026-03-05', grossCents: 1000, feeCents: 0, netCents: 1000, processor: 'stripe' });
    expect(draft.lines).toHaveLength(3);
    const e = buildEntry(draft);
    expect(e.lines).toEqual([
      { accountCode: '1010', side: 'debit', amountCents: 1000 },
      { accountCode: '1200', side: 'credit', amountCents: 1000 },
    ]);
    expect(totals(e.lines)).toEqual({ debitCents: 1000, creditCents: 1000 });
    expect(e).toMatchObject({ entryDate: '2026-03-05', sourceType: 'processor_payout', sourceId: PAYOUT });
  });
});
