import { AppError, type Allocation, type BillStatus, type ErrorDetail, type VendorPaymentStatus, allocations_max } from '@acct/contracts';
import { sumCents } from '@acct/ledger';
import { type Action, type Moves, checkAction, done } from './actions';
import { openBalance } from './bills';

export type PaymentAction = Action;

export const PAYMENT_MOVES: Moves<VendorPaymentStatus> = { post: { from: 'ready', to: 'posted' }, reverse: { from: 'posted', to: 'reversed' } };

/** As checkBillAction, for vendor payments: ready → posted → reversed. */
export function checkPaymentAction(id: string, status: VendorPaymentStatus, action: PaymentAction): 'move' | 'same' {
  const hint = action === 'post' ? 'A reversed payment stays reversed.' : 'Only a posted payment can be reversed.';
  return checkAction(PAYMENT_MOVES, status, action, () =>
    AppError.conflict(`Vendor payment ${id} is ${status}: it cannot be ${done(action)}.`, [{ field: '/status', issue: `vendor_payment_${status}`, message: hint }]),
  );
}

/**
 * The rules an allocation list obeys on its own (400): 1–100 rows, each amount a positive whole
 * number of cents, each bill at most once, and the amounts sum to the payment's amount.
 */
export function checkAllocationShape(amountCents: number, allocations: readonly Allocation[]): void {
  if (allocations.length < 1 || allocations.length > allocations_max) {
    throw AppError.validation(`A vendor payment has 1 to ${allocations_max} allocations.`, [
      { field: '/allocations', issue: allocations.length < 1 ? 'too_few' : 'too_many', message: `Send 1 to ${allocations_max} allocations.` },
    ]);
  }
  const details: ErrorDetail[] = [];
  const seen = new Map<string, number>();
  allocations.forEach((a, i) => {
    if (!Number.isSafeInteger(a.amount_cents) || a.amount_cents <= 0) {
      details.push({ field: `/allocations/${i}/amount_cents`, issue: 'out_of_range', message: 'Must be a whole number of cents greater than 0.' });
    }
    const first = seen.get(a.bill_id.toLowerCase());
    if (first !== undefined) {
      details.push({ field: `/allocations/${i}/bill_id`, issue: 'duplicate_bill', message: `Bill ${a.bill_id} is already allocated at /allocations/${first}: one row per bill.` });
    } else {
      seen.set(a.bill_id.toLowerCase(), i);
    }
  });
  if (details.length) throw AppError.validation('An allocation is invalid.', details);
  const sum = sumCents(allocations.map((a) => a.amount_cents));
  if (sum !== amountCents) {
    throw AppError.validation(`The allocations sum to ${sum} cents, not amount_cents ${amountCents}.`, [
      { field: '/allocations', issue: 'allocation_sum_mismatch', message: `The allocations must sum to amount_cents (${amountCents}); they sum to ${sum}.` },
    ]);
  }
}

export interface BillForAllocation {
  id: string;
  vendorId: string;
  status: BillStatus;
  totalCents: number;
  paidCents: number;
}

/**
 * The rules between allocations and the bills they name. Every payment: each bill exists in the
 * scope (404) and belongs to the payment's vendor (400). When the payment posts (`posting`): each
 * bill is posted (409 bill_draft / bill_reversed) and each amount ≤ the bill's open balance (409
 * exceeds_open_balance). `bills` holds the bills found, by id.
 */
export function checkAllocationsAgainstBills(vendorId: string, allocations: readonly Allocation[], bills: ReadonlyMap<string, BillForAllocation>, posting: boolean): void {
  const missing = allocations.flatMap((a, i) => (bills.has(a.bill_id) ? [] : [i]));
  if (missing.length) {
    throw new AppError(
      'not_found',
      `Bill ${allocations[missing[0]!]!.bill_id} was not found.`,
      missing.map((i) => ({ field: `/allocations/${i}/bill_id`, issue: 'not_found', message: 'No such bill in this organization and environment.' })),
    );
  }
  const foreign = allocations.flatMap((a, i) => (bills.get(a.bill_id)!.vendorId === vendorId ? [] : [i]));
  if (foreign.length) {
    throw AppError.validation(
      'Every allocated bill must belong to the vendor of the payment.',
      foreign.map((i) => ({ field: `/allocations/${i}/bill_id`, issue: 'vendor_mismatch', message: `The bill belongs to another vendor, not ${vendorId}.` })),
    );
  }
  if (!posting) return;
  const details: ErrorDetail[] = [];
  allocations.forEach((a, i) => {
    const b = bills.get(a.bill_id)!;
    if (b.status !== 'posted') {
      details.push({ field: `/allocations/${i}/bill_id`, issue: `bill_${b.status}`, message: `The bill is ${b.status}: only posted bills take payments.` });
      return;
    }
    const open = openBalance(b);
    if (a.amount_cents > open) {
      details.push({ field: `/allocations/${i}/amount_cents`, issue: 'exceeds_open_balance', message: `The open balance of bill ${b.id} is ${open} cents.` });
    }
  });
  if (details.length) throw AppError.conflict('An allocation does not fit its bill as the bill is now.', details);
}
