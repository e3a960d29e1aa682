import { AppError, type InvoiceStatus } from '@acct/contracts';

export type { InvoiceStatus };

/** Status from what has been paid, for a posted invoice (API-DECISIONS §5). */
export function statusForPaid(totalCents: number, paidCents: number): Exclude<InvoiceStatus, 'draft'> {
  if (paidCents >= totalCents) return 'paid';
  return paidCents > 0 ? 'partially_paid' : 'open';
}

export function openBalance(inv: { status: InvoiceStatus; totalCents: number; paidCents: number }): number {
  return inv.status === 'draft' ? 0 : inv.totalCents - inv.paidCents;
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
