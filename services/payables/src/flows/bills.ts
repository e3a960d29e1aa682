import { AppError } from '@acct/contracts';
import { reversalOf, todayUtc } from '@acct/ledger';
import { type Outcome, type Tx, sameDocumentContent } from '@acct/posting';
import { type Bill, billDto } from '../entities';
import { type BillAction, checkBillAction, checkNoPayments } from '../domain/bills';
import { billPosting } from '../domain/postings';
import { insertBill, lockBill, requireVendor } from '../queries';

/** The caller's content of a create, as compared on a retry (the requested status aside). */
export const sameBillContent = sameDocumentContent<Bill>((b) => ({
  vendor_id: b.vendorId,
  bill_number: b.billNumber,
  due_date: b.dueDate,
  expense_account_code: b.expenseAccountCode,
}));

/** The bill an action (post, reverse) applies to, locked; `repeat` when it already is where the action leads. */
async function lockForAction(tx: Tx, id: string, action: BillAction): Promise<{ bill: Bill; repeat: boolean }> {
  const bill = await lockBill(tx, id);
  if (!bill) throw AppError.notFound('Bill', id);
  return { bill, repeat: checkBillAction(bill.id, bill.status, action) === 'same' };
}

/** Books a draft bill: Dr expense / Cr A/P on the issue date (a zero total books nothing). */
async function book(tx: Tx, bill: Bill): Promise<void> {
  bill.status = 'posted';
  bill.postedAt = new Date();
  if (bill.totalCents > 0) bill.journalEntryId = await tx.post(billPosting(bill), { type: 'bill', bill: billDto(bill) });
}

/** Stores a bill for an existing vendor, booked now unless it is to stay a draft. */
export async function createBill(tx: Tx, row: Bill, post: boolean): Promise<Bill> {
  await requireVendor(tx, row.vendorId);
  if (post) await book(tx, row);
  await insertBill(tx, row);
  return row;
}

/** POST /bills/{id}/post: draft → posted; a posted bill answers as a replay. */
export async function postBill(tx: Tx, id: string): Promise<Outcome<Bill>> {
  const { bill, repeat } = await lockForAction(tx, id, 'post');
  if (repeat) return { record: bill, replayed: true };
  await book(tx, bill);
  return { record: bill, replayed: false };
}

/**
 * POST /bills/{id}/reverse: posted → reversed with the mirror entry dated today (the original is
 * kept). The bill's lock makes this and any payment on the bill run one after the other: a bill
 * with payments on it is refused, and a payment after the reversal finds the bill reversed.
 */
export async function reverseBill(tx: Tx, id: string, reason: string): Promise<Outcome<Bill>> {
  const { bill, repeat } = await lockForAction(tx, id, 'reverse');
  if (repeat) return { record: bill, replayed: true };
  checkNoPayments(bill);
  bill.status = 'reversed';
  bill.reversedAt = new Date();
  bill.reversalReason = reason;
  if (bill.journalEntryId) {
    const reversal = reversalOf({ id: bill.journalEntryId, sourceType: 'bill', sourceId: bill.id, lines: billPosting(bill).lines }, todayUtc(), {
      memo: `Reversal of bill ${bill.billNumber}: ${reason}`,
    });
    bill.reversalEntryId = await tx.post(reversal, { type: 'bill_reversal', bill: billDto(bill) });
  }
  return { record: bill, replayed: false };
}
