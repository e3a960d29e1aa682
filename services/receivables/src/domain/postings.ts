import { ACCOUNT, type JournalEntryDraft, transferEntry } from '@acct/ledger';

/** The ledger effects of API-DECISIONS §7 for receivables, as entry drafts. */

export function invoicePosting(inv: { id: string; customerId: string; issueDate: string; totalCents: number; invoiceNumber: string }): JournalEntryDraft {
  return transferEntry(
    { entryDate: inv.issueDate, sourceType: 'invoice', sourceId: inv.id, memo: `Invoice ${inv.invoiceNumber}` },
    { debit: ACCOUNT.receivable, credit: ACCOUNT.revenue, amountCents: inv.totalCents, dims: { customerId: inv.customerId, invoiceId: inv.id } },
  );
}

/** A payment as its entry needs it: the processor's money lands in clearing, the rest in cash. */
interface PaymentFacts {
  id: string;
  invoiceId: string;
  customerId: string;
  amountCents: number;
  receivedDate: string;
  source: 'manual' | 'processor';
}

export function paymentPosting(p: PaymentFacts): JournalEntryDraft {
  return transferEntry(
    { entryDate: p.receivedDate, sourceType: 'payment', sourceId: p.id, memo: 'Customer payment' },
    {
      debit: p.source === 'processor' ? ACCOUNT.processorClearing : ACCOUNT.cash,
      credit: ACCOUNT.receivable,
      amountCents: p.amountCents,
      dims: { customerId: p.customerId, invoiceId: p.invoiceId },
    },
  );
}

export function payoutPosting(p: { id: string; payoutDate: string; grossCents: number; feeCents: number; netCents: number; processor: string }): JournalEntryDraft {
  return {
    entryDate: p.payoutDate,
    sourceType: 'processor_payout',
    sourceId: p.id,
    memo: `${p.processor} payout`,
    lines: [
      { accountCode: ACCOUNT.bank, side: 'debit', amountCents: p.netCents },
      { accountCode: ACCOUNT.processorFees, side: 'debit', amountCents: p.feeCents },
      { accountCode: ACCOUNT.processorClearing, side: 'credit', amountCents: p.grossCents },
    ],
  };
}
