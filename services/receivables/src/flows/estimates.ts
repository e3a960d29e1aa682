import { randomUUID } from 'node:crypto';
import { AppError, type EstimateConvertBody, type EstimateCreateBody, type EstimateStatus, type EstimateUpdateBody, limits, metadataOnCreate } from '@acct/contracts';
import { type Scope, insertEntity } from '@acct/kit';
import { addDays, isCalendarDate, requireOrder, todayUtc } from '@acct/ledger';
import { type CreateOnce, type DraftRemake, type Outcome, type Tx, lineDocumentContent, newLineDocument, sameDocumentContent, updateDraft } from '@acct/posting';
import { type Estimate, EstimateSchema, type Invoice, InvoiceSchema, NOT_VOID } from '../entities';
import { checkEstimateMove } from '../domain/estimates';
import { lockEstimate, requireCustomer } from '../queries';

/** The caller's content of a create, as compared on a retry. */
export const sameEstimateContent = sameDocumentContent<Estimate>((e) => ({ customer_id: e.customerId, expiry_date: e.expiryDate, metadata: e.metadata }));

/** A create body, or the body a draft's PATCH makes of the estimate (expiry_date and memo null clear them). */
type EstimateContent = Omit<EstimateCreateBody, 'memo' | 'expiry_date'> & { memo?: string | null; expiry_date?: string | null };

/** A new draft estimate of the scope from a create body: the lines priced, expiry_date ≥ issue_date, USD (400 otherwise). */
export function newEstimate(scope: Scope, b: EstimateContent): Estimate {
  const doc = newLineDocument(scope, b, () => {
    if (b.expiry_date) requireOrder(b.issue_date, b.expiry_date, 'issue_date', 'expiry_date');
    return { issueDate: b.issue_date, expiryDate: b.expiry_date ?? null };
  });
  return { ...doc, externalEstimateId: b.external_estimate_id, customerId: b.customer_id, status: 'draft', invoiceId: null, metadata: metadataOnCreate(b.metadata) };
}

/** How a draft estimate's PATCH makes it again (updateDraft): from the create body it would have come from. */
const ESTIMATE_DRAFT: DraftRemake<Estimate, EstimateContent, 'customerId'> = {
  content: (e) => ({ ...lineDocumentContent(e), external_estimate_id: e.externalEstimateId, customer_id: e.customerId, expiry_date: e.expiryDate }),
  remake: newEstimate,
  fields: ['externalEstimateId', 'customerId', 'issueDate', 'expiryDate', 'lineItems', 'totalCents', 'currency', 'memo'],
  party: { field: 'customerId', require: requireCustomer },
};

/**
 * PATCH /estimates/{id} under the estimate's row lock: a draft takes any create field (a new
 * customer must exist); once sent, accepted, declined, expired or converted only metadata (409
 * otherwise). A taken external id fails at flush (the caller answers 409).
 */
export async function updateEstimate(tx: Tx, id: string, body: EstimateUpdateBody): Promise<Estimate> {
  return updateDraft(tx, 'estimate', id, await lockEstimate(tx, id), body, ESTIMATE_DRAFT);
}

/** The create of a draft estimate for an existing customer, once per external id (createInBooks). */
export const ESTIMATE_ONCE: CreateOnce<Estimate> = {
  draft: async (db, row) => {
    await requireCustomer(db, row.customerId);
    await insertEntity(db.em, EstimateSchema, row);
  },
  find: (db, row) => db.em.findOne(EstimateSchema, { ...db.scope, externalEstimateId: row.externalEstimateId }),
  same: sameEstimateContent,
};

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
    // The estimate's metadata is its own: the invoice starts with none (PATCH /invoices/{id} sets some).
    metadata: {},
    createdAt: new Date(),
  };
  await insertEntity(tx.em, InvoiceSchema, invoice);
  e.status = 'converted';
  e.invoiceId = invoice.id;
  return { invoiceId: invoice.id, replayed: false };
}
