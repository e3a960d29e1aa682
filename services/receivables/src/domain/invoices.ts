import { AppError, type InvoiceStatus } from '@acct/contracts';

export type { InvoiceStatus };

/** Status from what has been paid, for a posted invoice (API-DECISIONS §5). */
export function statusForPaid(totalCents: number, paidCents: number): Exclude<InvoiceStatus, 'draft' | 'void'> {
  if (paidCents >= totalCents) return 'paid';
  return paidCents > 0 ? 'partially_paid' : 'open';
}

/**
 * A draft as posting leaves it, posted at `postedAt`: open, with `entryId` as its journal entry; or,
 * at a zero total, paid at once with no entry (nothing to collect, nothing to book).
 */
export function postedInvoice<I extends { totalCents: number; status: InvoiceStatus; postedAt: Date | null; journalEntryId: string | null }>(
  draft: I,
  postedAt: Date,
  entryId: string,
): I {
  const status = statusForPaid(draft.totalCents, 0);
  return { ...draft, status, postedAt, journalEntryId: status === 'paid' ? null : entryId };
}

export function openBalance(inv: { status: InvoiceStatus; totalCents: number; paidCents: number }): number {
  return inv.status === 'draft' || inv.status === 'void' ? 0 : inv.totalCents - inv.paidCents;
}

/** A payment needs an open or partially paid invoice and 0 < amount ≤ open balance. */
export function checkPayment(inv: { id: string; status: InvoiceStatus; totalCents: number; paidCents: number }, amountCents: number): void {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) {
    throw AppError.validation('amount_cents must be a whole number of cents greater than 0.', [{ field: '/amount_cents', issue: 'out_of_range', message: 'Must be > 0.' }]);
  }
  if (inv.status !== 'open' && inv.status !== 'partially_paid') {
    throw AppError.conflict(`Invoice ${inv.id} is ${inv.status}: only open or partially paid invoices take payments.`, [
      { field: '/invoice_id', issue: `invoice_${inv.status}`, message: `The invoice is ${inv.status}.` },
    ]);
  }
  const open = openBalance(inv);
  if (amountCents > open) {
    throw AppError.conflict(`amount_cents ${amountCents} exceeds the open balance of ${open}.`, [
      { field: '/amount_cents', issue: 'exceeds_open_balance', message: `The open balance is ${open} cents.` },
    ]);
  }
}

/**
 * Whether an invoice can be voided on voidDate (API-DECISIONS §11): 'same' when it already is void (a
 * repeated action, whatever date it names); 'move' for a draft, or an open invoice with nothing paid;
 * 409 once money came in (refund the payments first); 400 naming /void_date before the issue date.
 */
export function checkVoid(inv: { id: string; status: InvoiceStatus; paidCents: number; issueDate: string }, voidDate: string): 'move' | 'same' {
  if (inv.status === 'void') return 'same';
  if (inv.status === 'partially_paid' || inv.status === 'paid' || inv.paidCents > 0) {
    throw AppError.conflict(`Invoice ${inv.id} is ${inv.status}: only a draft or an open invoice with no payments can be voided.`, [
      { field: '/status', issue: `invoice_${inv.status}`, message: 'Refund its payments first; a paid or partially paid invoice cannot be voided.' },
    ]);
  }
  if (voidDate < inv.issueDate) {
    throw AppError.validation('void_date must be on or after the issue date.', [
      { field: '/void_date', issue: 'before_issue_date', message: `void_date ${voidDate} is before issue_date ${inv.issueDate}: send a void_date on or after it.` },
    ]);
  }
  return 'move';
}
