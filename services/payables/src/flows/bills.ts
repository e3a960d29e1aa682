import { randomUUID } from 'node:crypto';
import { AppError, type BillCreateBody, type BillUpdateBody, metadataOnCreate } from '@acct/contracts';
import type { Scope } from '@acct/kit';
import { accountId, accountingDate, requireOrder, reversalOf, todayUtc } from '@acct/ledger';
import { type DraftRemake, type Outcome, type Tx, lineDocumentContent, newLineDocument, sameDocumentContent, updateDraft } from '@acct/posting';
import { type Bill, billDto, unposted } from '../entities';
import { expenseAccountCode } from '../domain/accounts';
import { type BillAction, checkBillAction, checkNoPayments } from '../domain/bills';
import { billPosting } from '../domain/postings';
import { lockBill, requireVendor, vendorNotFound } from '../queries';

/** The caller's content of a create, as compared on a retry (the requested status aside). */
export const sameBillContent = sameDocumentContent<Bill>((b) => ({
  vendor_id: b.vendorId,
  bill_number: b.billNumber,
  due_date: b.dueDate,
  expense_account_code: b.expenseAccountCode,
  metadata: b.metadata,
}));

/** A create body (its status aside), or the body a draft's PATCH makes of the bill (memo null clears it). */
type BillContent = Omit<BillCreateBody, 'memo' | 'status'> & { memo?: string | null };

/** A new draft bill of the scope from a create body: the lines priced, dates in range and in order, USD, an expense account (400/404 otherwise). */
export function newBill(scope: Scope, b: BillContent): Bill {
  const doc = newLineDocument(scope, b, () => {
    const issueDate = accountingDate(b.issue_date, 'issue_date');
    const dueDate = accountingDate(b.due_date, 'due_date');
    requireOrder(issueDate, dueDate, 'issue_date', 'due_date');
    return { issueDate, dueDate };
  });
  return {
    ...doc,
    externalBillId: b.external_bill_id,
    vendorId: b.vendor_id,
    billNumber: b.bill_number,
    expenseAccountCode: expenseAccountCode(scope, b.expense_account_id),
    paidCents: 0,
    status: 'draft',
    metadata: metadataOnCreate(b.metadata),
    ...unposted(),
  };
}

/** How a draft bill's PATCH makes it again (updateDraft): from the create body it would have come from (its status aside). */
const BILL_DRAFT: DraftRemake<Bill, BillContent, 'vendorId'> = {
  content: (b) => ({
    ...lineDocumentContent(b),
    external_bill_id: b.externalBillId,
    vendor_id: b.vendorId,
    bill_number: b.billNumber,
    due_date: b.dueDate,
    expense_account_id: accountId(b.organizationId, b.environment, b.expenseAccountCode),
  }),
  remake: newBill,
  fields: ['externalBillId', 'vendorId', 'billNumber', 'issueDate', 'dueDate', 'lineItems', 'totalCents', 'expenseAccountCode', 'currency', 'memo'],
  party: { field: 'vendorId', require: requireVendor },
};

/**
 * PATCH /bills/{id} under the bill's row lock (post, reverse and payments take it too): a draft takes
 * any create field but status (a new vendor must exist); once posted or reversed only metadata (409
 * otherwise). A taken external id fails at flush (the caller answers 409).
 */
export async function updateBill(tx: Tx, id: string, body: BillUpdateBody): Promise<Bill> {
  return updateDraft(tx, 'bill', id, await lockBill(tx, id), body, BILL_DRAFT);
}

/** The bill an action (post, reverse) applies to, locked; `repeat` when it already is where the action leads. */
async function lockForAction(tx: Tx, id: string, action: BillAction): Promise<{ bill: Bill; repeat: boolean }> {
  const bill = await lockBill(tx, id);
  if (!bill) throw AppError.notFound('Bill', id);
  return { bill, repeat: checkBillAction(bill.id, bill.status, action) === 'same' };
}

/**
 * A new bill as its create stores it: booked now unless it is to stay a draft, posted with the id
 * of the journal entry it will post (a zero total books none), so that its row can be written
 * before the entry (INSERT_BILLS_BATCH); createBill then books it with that id.
 */
export function toStore(row: Bill, post: boolean): Bill {
  return post ? { ...row, status: 'posted', postedAt: new Date(), journalEntryId: row.totalCents > 0 ? randomUUID() : null } : row;
}

/**
 * Books a draft bill, or a new one toStore() marked: Dr expense / Cr A/P on the issue date (a zero
 * total books nothing), with the entry id the bill holds, if any.
 */
async function book(tx: Tx, bill: Bill): Promise<void> {
  await tx.assertOpen(bill.issueDate, '/issue_date'); // a zero total too: its date is in the books
  bill.status = 'posted';
  bill.postedAt ??= new Date();
  if (bill.totalCents > 0) bill.journalEntryId = await tx.post(billPosting(bill), { type: 'bill', bill: billDto(bill) }, bill.journalEntryId ?? undefined);
}

/**
 * A bill its group stored already (INSERT_BILLS_BATCH, `stored`: whether its vendor was one of the
 * scope), as toStore() left it, booked now unless it is to stay a draft. The vendor is checked by
 * the INSERT itself: a booking that would be refused (the lock date) still answers 404 first when
 * the vendor is not one of the scope, as when the vendor was read first.
 */
export async function createBill(tx: Tx, row: Bill, post: boolean, stored: boolean | undefined): Promise<Bill> {
  if (!stored) throw vendorNotFound(row.vendorId);
  if (post) await book(tx, row);
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
