import { ACCOUNT, type JournalEntryDraft, type JournalLine, transferEntry } from '@acct/ledger';
import type { Allocation } from '@acct/contracts';

/** The ledger effects of API-DECISIONS §7 for payables, as entry drafts. Lines carry vendor and bill. */

export function billPosting(b: { id: string; vendorId: string; issueDate: string; totalCents: number; billNumber: string; expenseAccountCode: string }): JournalEntryDraft {
  return transferEntry(
    { entryDate: b.issueDate, sourceType: 'bill', sourceId: b.id, memo: `Bill ${b.billNumber}` },
    { debit: b.expenseAccountCode, credit: ACCOUNT.payable, amountCents: b.totalCents, dims: { vendorId: b.vendorId, billId: b.id } },
  );
}

/** Dr A/P per allocated bill / Cr the cash account for the whole amount, dated payment_date. */
export function vendorPaymentPosting(p: {
  id: string;
  vendorId: string;
  paymentDate: string;
  amountCents: number;
  cashAccountCode: string;
  allocations: readonly Allocation[];
}): JournalEntryDraft {
  const debits: JournalLine[] = p.allocations.map((a) => ({ accountCode: ACCOUNT.payable, side: 'debit', amountCents: a.amount_cents, vendorId: p.vendorId, billId: a.bill_id }));
  return {
    entryDate: p.paymentDate,
    sourceType: 'vendor_payment',
    sourceId: p.id,
    memo: 'Vendor payment',
    lines: [...debits, { accountCode: p.cashAccountCode, side: 'credit', amountCents: p.amountCents, vendorId: p.vendorId, billId: null }],
  };
}
