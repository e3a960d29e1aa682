import { ACCOUNT, buildEntry, reversalOf, totals } from '@acct/ledger';
import { billPosting, vendorPaymentPosting } from './postings';

const BILL = '11111111-1111-4111-8111-111111111111';
const BILL2 = '55555555-5555-4555-8555-555555555555';
const VENDOR = '22222222-2222-4222-8222-222222222222';
const PAYMENT = '33333333-3333-4333-8333-333333333333';

describe('billPosting', () => {
  it('debits the expense account and credits A/P for the total, on the issue date, with vendor and bill on each line', () => {
    const draft = billPosting({ id: BILL, vendorId: VENDOR, issueDate: '2026-03-01', totalCents: 12_345, billNumber: 'B-7', expenseAccountCode: ACCOUNT.processorFees });
    expect(draft).toMatchObject({ entryDate: '2026-03-01', sourceType: 'bill', sourceId: BILL, memo: 'Bill B-7' });
    expect(draft.lines).toEqual([
      { accountCode: '5200', side: 'debit', amountCents: 12_345, vendorId: VENDOR, billId: BILL },
      { accountCode: '2000', side: 'credit', amountCents: 12_345, vendorId: VENDOR, billId: BILL },
    ]);
    expect(totals(buildEntry(draft).lines)).toEqual({ debitCents: 12_345, creditCents: 12_345 });
  });
});

describe('vendorPaymentPosting', () => {
  const draft = vendorPaymentPosting({
    id: PAYMENT,
    vendorId: VENDOR,
    paymentDate: '2026-03-05',
    amountCents: 700,
    cashAccountCode: ACCOUNT.bank,
    allocations: [
      { bill_id: BILL, amount_cents: 300 },
      { bill_id: BILL2, amount_cents: 400 },
    ],
  });

  it('debits A/P per allocated bill and credits the cash account for the amount, on the payment date', () => {
    expect(draft).toMatchObject({ entryDate: '2026-03-05', sourceType: 'vendor_payment', sourceId: PAYMENT });
    expect(draft.lines).toEqual([
      { accountCode: '2000', side: 'debit', amountCents: 300, vendorId: VENDOR, billId: BILL },
      { accountCode: '2000', side: 'debit', amountCents: 400, vendorId: VENDOR, billId: BILL2 },
      { accountCode: '1010', side: 'credit', amountCents: 700, vendorId: VENDOR, billId: null },
    ]);
    expect(totals(buildEntry(draft).lines)).toEqual({ debitCents: 700, creditCents: 700 });
  });

  it('reverses into the mirror entry, linked to the original', () => {
    const entryId = '66666666-6666-4666-8666-666666666666';
    const r = reversalOf({ id: entryId, sourceType: draft.sourceType, sourceId: draft.sourceId, lines: draft.lines }, '2026-03-09');
    expect(r.reversesEntryId).toBe(entryId);
    expect(r.lines.map((l) => l.side)).toEqual(['credit', 'credit', 'debit']);
    expect(totals(r.lines)).toEqual({ debitCents: 700, creditCents: 700 });
  });
});
