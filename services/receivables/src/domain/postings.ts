import { ACCOUNT, type JournalEntryDraft } from '@acct/ledger';

/** The ledger effects of API-DECISIONS §7 for receivables, as entry drafts. */

export function invoicePosting(inv: { id: string; customerId: string; issueDate: string; totalCents: number; invoiceNumber: string }): JournalEntryDraft {
  const dims = { customerId: inv.customerId, invoiceId: inv.id };
  return {
    entryDate: inv.issueDate,
    sourceType: 'invoice',
    sourceId: inv.id,
    memo: `Invoice ${inv.invoiceNumber}`,
    lines: [
      { accountCode: ACCOUNT.receivable, side: 'debit', amountCents: inv.totalCents, ...dims },
      { accountCode: ACCOUNT.revenue, side: 'credit', amountCents: inv.totalCents, ...dims },
    ],
  };
}

export function paymentPosting(p: {
  id: string;
  invoiceId: string;
  customerId: string;
  amountCents: number;
  receivedDate: string;
  source: 'manual' | 'processor';
}): JournalEntryDraft {
  const dims = { customerId: p.customerId, invoiceId: p.invoiceId };
  return {
    entryDate: p.receivedDate,
    sourceType: 'payment',
    sourceId: p.id,
    memo: 'Customer payment',
    lines: [
      { accountCode: p.source === 'processor' ? ACCOUNT.processorClearing : ACCOUNT.cash, side: 'debit', amountCents: p.amountCents, ...dims },
      { accountCode: ACCOUNT.receivable, side: 'credit', amountCents: p.amountCents, ...dims },
    ],
  };
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
