import { AppError } from '@acct/contracts';
import { reversalOf, todayUtc } from '@acct/ledger';
import { type Outcome, type Tx, sameJson } from '@acct/posting';
import { insertEntity } from '@acct/kit';
import { type Bill, type VendorPayment, VendorPaymentSchema, billDto, vendorPaymentDto } from '../entities';
import { type PaymentAction, checkAllocationsAgainstBills, checkPaymentAction } from '../domain/vendor-payments';
import { vendorPaymentPosting } from '../domain/postings';
import { billsById, findVendorPaymentByExternalId, lockVendorPayment, requireVendor } from '../queries';

/** The caller's content of a create, as compared on a retry (the requested status aside). */
const vendorPaymentContent = (p: Pick<VendorPayment, 'vendorId' | 'amountCents' | 'paymentDate' | 'cashAccountCode' | 'allocations' | 'currency' | 'memo' | 'metadata'>) => ({
  vendor_id: p.vendorId,
  amount_cents: p.amountCents,
  payment_date: p.paymentDate,
  cash_account_code: p.cashAccountCode,
  allocations: p.allocations.map((a) => ({ bill_id: a.bill_id, amount_cents: a.amount_cents })),
  currency: p.currency,
  memo: p.memo,
  metadata: p.metadata,
});

/** The bills a payment allocates to, by id (locked in id order when `lock`). */
const allocatedBills = (tx: Tx, p: VendorPayment, lock: boolean) =>
  billsById(
    tx,
    p.allocations.map((a) => a.bill_id),
    lock,
  );

/** The payment an action (post, reverse) applies to, locked; `repeat` when it already is where the action leads. */
async function lockForAction(tx: Tx, id: string, action: PaymentAction): Promise<{ p: VendorPayment; repeat: boolean }> {
  const p = await lockVendorPayment(tx, id);
  if (!p) throw AppError.notFound('Vendor payment', id);
  return { p, repeat: checkPaymentAction(p.id, p.status, action) === 'same' };
}

const billsOf = (p: VendorPayment, bills: Map<string, Bill>): Bill[] => p.allocations.map((a) => bills.get(a.bill_id)!);

/** Books a payment whose bills are locked and checked: the bills' paid amounts, Dr A/P / Cr cash. */
async function book(tx: Tx, p: VendorPayment, bills: Map<string, Bill>): Promise<void> {
  await tx.assertOpen(p.paymentDate, '/payment_date');
  for (const a of p.allocations) bills.get(a.bill_id)!.paidCents += a.amount_cents;
  p.status = 'posted';
  p.postedAt = new Date();
  p.journalEntryId = await tx.post(vendorPaymentPosting(p), { type: 'vendor_payment', vendor_payment: vendorPaymentDto(p), bills: billsOf(p, bills).map(billDto) });
}

/**
 * Records a vendor payment (posted now unless `post` is false). The allocated bills are locked
 * first, in id order, so concurrent payments on a bill run one after the other and each sees the
 * balance the previous one left. A retry of the same external id that waited on those locks finds
 * the first payment and answers it. Every check runs before the first write.
 */
export async function createVendorPayment(tx: Tx, row: VendorPayment, post: boolean): Promise<Outcome<VendorPayment>> {
  const bills = await allocatedBills(tx, row, post);
  const existing = await findVendorPaymentByExternalId(tx, row.externalVendorPaymentId);
  if (existing) {
    if (!sameJson(vendorPaymentContent(existing), vendorPaymentContent(row))) {
      throw AppError.conflict('external_vendor_payment_id was already used for a vendor payment with different content.', [
        { field: '/external_vendor_payment_id', issue: 'already_used', message: `Vendor payment ${existing.id} has this external id.` },
      ]);
    }
    return { record: existing, replayed: true };
  }
  await requireVendor(tx, row.vendorId);
  checkAllocationsAgainstBills(row.vendorId, row.allocations, bills, post);
  if (post) await book(tx, row, bills);
  await insertEntity(tx.em, VendorPaymentSchema, row);
  return { record: row, replayed: false };
}

/** POST /vendor-payments/{id}/post: ready → posted, the allocation rules checked against the bills as they are now. */
export async function postVendorPayment(tx: Tx, id: string): Promise<Outcome<VendorPayment>> {
  const { p, repeat } = await lockForAction(tx, id, 'post');
  if (repeat) return { record: p, replayed: true };
  const bills = await allocatedBills(tx, p, true);
  checkAllocationsAgainstBills(p.vendorId, p.allocations, bills, true);
  await book(tx, p, bills);
  return { record: p, replayed: false };
}

/** POST /vendor-payments/{id}/reverse: posted → reversed, the mirror entry dated today; the bills' open balances come back. */
export async function reverseVendorPayment(tx: Tx, id: string, reason: string): Promise<Outcome<VendorPayment>> {
  const { p, repeat } = await lockForAction(tx, id, 'reverse');
  if (repeat) return { record: p, replayed: true };
  const bills = await allocatedBills(tx, p, true);
  for (const a of p.allocations) {
    const bill = bills.get(a.bill_id);
    if (!bill) throw new AppError('internal_error', `Bill ${a.bill_id} of vendor payment ${p.id} is missing.`);
    bill.paidCents -= a.amount_cents;
  }
  p.status = 'reversed';
  p.reversedAt = new Date();
  p.reversalReason = reason;
  const reversal = reversalOf({ id: p.journalEntryId!, sourceType: 'vendor_payment', sourceId: p.id, lines: vendorPaymentPosting(p).lines }, todayUtc(), {
    memo: `Reversal of a vendor payment: ${reason}`,
  });
  p.reversalEntryId = await tx.post(reversal, { type: 'vendor_payment_reversal', vendor_payment: vendorPaymentDto(p), bills: billsOf(p, bills).map(billDto) });
  return { record: p, replayed: false };
}
