import type { ChainEntry } from './chain';

export const ENTRY_ID = '44444444-4444-4444-8444-444444444444';
export const INVOICE_ID = '11111111-1111-4111-8111-111111111111';

/** An invoice's chain entry: 500 cents debited to receivables (`receivableId`) and credited to revenue. */
export function invoiceChainEntry(receivableId: string, revenueId: string): ChainEntry {
  const line = { amountCents: 500, customerId: null, vendorId: null, billId: null };
  return {
    id: ENTRY_ID,
    entryDate: '2026-01-15',
    sourceType: 'invoice',
    sourceId: INVOICE_ID,
    memo: null,
    reversesEntryId: null,
    lines: [
      { ...line, accountId: receivableId, accountCode: '1100', side: 'debit', invoiceId: INVOICE_ID, memo: null },
      { ...line, accountId: revenueId, accountCode: '4000', side: 'credit', invoiceId: null, memo: 'why?' },
    ],
  };
}
