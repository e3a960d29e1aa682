import { randomUUID } from 'node:crypto';
import { AppError, type EstimateConvertBody, type EstimateStatus, limits } from '@acct/contracts';
import { addDays, isCalendarDate, requireOrder, todayUtc } from '@acct/ledger';
import { type Db, type Outcome, type Tx, sameDocumentContent } from '@acct/posting';
import { type Estimate, EstimateSchema, type Invoice, InvoiceSchema, NOT_VOID } from '../entities';
import { checkEstimateMove } from '../domain/estimates';
import { lockEstimate, requireCustomer } from '../queries';

/** The caller's content of a create, as compared on a retry. */
export const sameEstimateContent = sameDocumentContent<Estimate>((e) => ({ customer_id: e.customerId, expiry_date: e.expiryDate }));

export async function createEstimate(db: Db, row: Estimate): Promise<Estimate> {
  await requireCustomer(db, row.customerId);
  await db.em.insert(EstimateSchema, row);
  return row;
}

/** A status move of API-DECISIONS §5; moving to the status it already has is a replay. */
export async function moveEstimate(tx: Tx, id: string, to: EstimateStatus): Promise<Outcome<Estimate>> {
  const e = await lockEstimate(tx, id);
  if (!e) throw AppError.notFound('Estimate', id);
  const move = checkEstimateMove(e.status, to);
  if (move === 'move') e.status = to;
  return { record: e, replayed: move === 'same' };
}

/**
 * Turns an accepted estimate into a draft invoice (once: converting again answers the same
 * invoice). The issue date defaults to today and the due date to issue date + the payment terms of
 * the invoice defaults (asked only when needed: a replay or a given due_date needs none).
 */
export async function convertEstimate(tx: Tx, id: string, b: EstimateConvertBody, termsDays: () => Promise<number>): Promise<{ invoiceId: string; replayed: boolean }> {
  const e = await lockEstimate(tx, id);
  if (!e) throw AppError.notFound('Estimate', id);
  if (e.status === 'converted' && e.invoiceId) return { invoiceId: e.invoiceId, replayed: true };
  if (e.status !== 'accepted') {
    throw AppError.conflict(`Estimate ${e.id} is ${e.status}: only an accepted estimate can be converted.`, [
      { field: '/status', issue: `estimate_${e.status}`, message: 'Accept the estimate first.' },
    ]);
  }
  const issueDate = b.issue_date ?? todayUtc();
  const terms = b.due_date === undefined ? await termsDays() : 0;
  const dueDate = b.due_date ?? addDays(issueDate, terms);
  if (!isCalendarDate(dueDate)) {
    // The terms from an issue date at the end of the range would leave it (10000-01-30).
    throw AppError.validation(`The default due date (issue_date + ${terms} days) is out of range: send due_date.`, [
      { field: '/due_date', issue: 'required', message: `due_date must be given when issue_date + ${terms} days is after ${limits.date_max}.` },
    ]);
  }
  requireOrder(issueDate, dueDate, 'issue_date', 'due_date');
  const invoice: Invoice = {
    id: randomUUID(),
    ...tx.scope,
    externalInvoiceId: b.external_invoice_id ?? `estimate-${e.id}`,
    customerId: e.customerId,
    invoiceNumber: b.invoice_number ?? e.externalEstimateId,
    issueDate,
    dueDate,
    currency: e.currency,
    memo: e.memo,
    lineItems: e.lineItems,
    totalCents: e.totalCents,
    paidCents: 0,
    status: 'draft',
    estimateId: e.id,
    journalEntryId: null,
    postedAt: null,
    ...NOT_VOID,
    createdAt: new Date(),
  };
  await tx.em.insert(InvoiceSchema, invoice);
  e.status = 'converted';
  e.invoiceId = invoice.id;
  return { invoiceId: invoice.id, replayed: false };
}
