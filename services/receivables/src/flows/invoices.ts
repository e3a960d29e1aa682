import { randomUUID } from 'node:crypto';
import { AppError, type InvoiceCreateBody, type InvoiceUpdateBody, metadataOnCreate } from '@acct/contracts';
import type { Scope } from '@acct/kit';
import { requireOrder, reversalOf, todayUtc } from '@acct/ledger';
import { type CreateOnce, type Db, type DraftRemake, type Outcome, type Tx, lineDocumentContent, newLineDocument, sameDocumentContent, updateDraft } from '@acct/posting';
import { type Invoice, InvoiceSchema, NOT_VOID, invoiceDto } from '../entities';
import { checkVoid, postedInvoice } from '../domain/invoices';
import { invoicePosting } from '../domain/postings';
import { type DraftPost, customerNotFound, insertInvoiceOfCustomer, lockInvoice, lockInvoiceRow, markPosted, requireCustomer, saveVoidedInvoice } from '../queries';

/** A create body, or the body a draft's PATCH makes of the invoice (memo null clears it). */
type InvoiceContent = Omit<InvoiceCreateBody, 'memo'> & { memo?: string | null };

/** A new draft invoice of the scope from a create body: the lines priced, due_date ≥ issue_date, USD (400 otherwise). */
export function newInvoice(scope: Scope, b: InvoiceContent): Invoice {
  const doc = newLineDocument(scope, b, () => {
    requireOrder(b.issue_date, b.due_date, 'issue_date', 'due_date');
    return { issueDate: b.issue_date, dueDate: b.due_date };
  });
  return {
    ...doc,
    externalInvoiceId: b.external_invoice_id,
    customerId: b.customer_id,
    invoiceNumber: b.invoice_number,
    paidCents: 0,
    status: 'draft',
    estimateId: null,
    journalEntryId: null,
    postedAt: null,
    ...NOT_VOID,
    metadata: metadataOnCreate(b.metadata),
  };
}

/** How a draft invoice's PATCH makes it again (updateDraft): from the create body it would have come from. */
const INVOICE_DRAFT: DraftRemake<Invoice, InvoiceContent, 'customerId'> = {
  content: (i) => ({ ...lineDocumentContent(i), external_invoice_id: i.externalInvoiceId, customer_id: i.customerId, invoice_number: i.invoiceNumber, due_date: i.dueDate }),
  remake: newInvoice,
  fields: ['externalInvoiceId', 'customerId', 'invoiceNumber', 'issueDate', 'dueDate', 'lineItems', 'totalCents', 'currency', 'memo'],
  party: { field: 'customerId', require: requireCustomer },
};

/**
 * PATCH /invoices/{id} under the invoice's row lock (a post waits for it, and a PATCH after a post
 * sees the invoice open): a draft takes any create field (a new customer must exist); once posted
 * only metadata (409 otherwise). A taken external id fails at flush (the caller answers 409).
 */
export async function updateInvoice(tx: Tx, id: string, body: InvoiceUpdateBody): Promise<Invoice> {
  return updateDraft(tx, 'invoice', id, await lockInvoice(tx, id), body, INVOICE_DRAFT);
}

/** The caller's content of a create, as compared on a retry. */
export const sameInvoiceContent = sameDocumentContent<Invoice>((i) => ({ customer_id: i.customerId, invoice_number: i.invoiceNumber, due_date: i.dueDate, metadata: i.metadata }));

/** Stores a draft invoice for an existing customer (nothing is booked until it is posted). */
async function createDraftInvoice(db: Db, row: Invoice): Promise<Invoice> {
  if (!(await insertInvoiceOfCustomer(db, row))) throw customerNotFound(row.customerId);
  return row;
}

/** The create of a draft invoice, once per external id (createInBooks). */
export const INVOICE_ONCE: CreateOnce<Invoice> = {
  draft: createDraftInvoice,
  find: (db, row) => db.em.findOne(InvoiceSchema, { ...db.scope, externalInvoiceId: row.externalInvoiceId }),
  same: sameInvoiceContent,
};

/**
 * Posts a draft: Dr A/R / Cr revenue on the issue date, status open (or paid when the total is 0),
 * invoice.posted for the app. Posting a posted invoice again is a repeated action: its current state,
 * no second ledger effect; a void invoice is not posted (409). `batched`: what its group's
 * POST_DRAFTS_BATCH answered (DraftPost: a second post of it in the group answers the first's record).
 */
export async function postInvoice(tx: Tx, id: string, batched: DraftPost): Promise<Outcome<Invoice>> {
  const { first, shared } = batched;
  if (!first) return { record: shared.record!, replayed: true }; // the first one answered (else the group failed)
  const done = await postFirst(tx, id, shared.posted);
  shared.record = done.record;
  return done;
}

/** The group's first post of an invoice: `posted` as the batch locked and posted it, or null (not a draft then). */
async function postFirst(tx: Tx, id: string, posted: Invoice | null): Promise<Outcome<Invoice>> {
  if (posted) return postMarked(tx, posted);
  // Not a draft of the scope: not found, void, already posted (a replay), or a draft the batch's
  // snapshot did not hold yet (committed since): locked now, posted the same way.
  const inv = await lockInvoiceRow(tx, id);
  if (!inv) throw AppError.notFound('Invoice', id);
  if (inv.status === 'void') {
    throw AppError.conflict(`Invoice ${inv.id} is void: it cannot be posted.`, [
      { field: '/status', issue: 'invoice_void', message: 'A void invoice stays void: create a new invoice.' },
    ]);
  }
  if (inv.status !== 'draft') return { record: inv, replayed: true };
  return postMarked(tx, postedInvoice(inv, new Date(), randomUUID()));
}

/**
 * A locked draft posted (domain/invoices postedInvoice): its mark queued (markPosted) and its entry
 * posted in this transaction with the id the row gets, or the lock date's 409 (a zero total too:
 * its date is in the books) rolls both back.
 */
async function postMarked(tx: Tx, draft: Invoice): Promise<Outcome<Invoice>> {
  markPosted(tx, draft);
  await tx.assertOpen(draft.issueDate, '/issue_date');
  if (draft.journalEntryId) await tx.post(invoicePosting(draft), { type: 'invoice', invoice: invoiceDto(draft) }, draft.journalEntryId);
  emitPosted(tx, draft);
  return { record: draft, replayed: false };
}

function emitPosted(tx: Tx, inv: Invoice): void {
  tx.emit('invoice.posted', {
    invoice_id: inv.id,
    invoice_number: inv.invoiceNumber,
    customer_id: inv.customerId,
    total_cents: inv.totalCents,
    currency: inv.currency,
    issue_date: inv.issueDate,
    due_date: inv.dueDate,
  });
}

/**
 * POST /invoices/{id}/void: a draft becomes void with no entry; an open invoice with nothing paid
 * becomes void with the mirror of its posting entry dated voidDate (default today, UTC), so every
 * report before that date still shows it and none from it on. The invoice's lock makes a void and a
 * payment on it run one after the other: the payment then finds it void (409), or the void finds it
 * paid (409). Voiding a void invoice is a repeated action: its current state, no second entry.
 */
export async function voidInvoice(tx: Tx, id: string, voidDate: string | undefined): Promise<Outcome<Invoice>> {
  const inv = await lockInvoiceRow(tx, id);
  if (!inv) throw AppError.notFound('Invoice', id);
  const date = voidDate ?? todayUtc();
  if (checkVoid(inv, date) === 'same') return { record: inv, replayed: true };
  // Only a void that posts (an open invoice's reversal) is in the books; a draft's void is not.
  if (inv.journalEntryId) await tx.assertOpen(date, '/void_date');
  inv.status = 'void';
  inv.voidDate = date;
  inv.voidedAt = new Date();
  if (inv.journalEntryId) {
    const reversal = reversalOf({ id: inv.journalEntryId, sourceType: 'invoice', sourceId: inv.id, lines: invoicePosting(inv).lines }, date, {
      memo: `Void of invoice ${inv.invoiceNumber}`,
    });
    inv.voidEntryId = await tx.post(reversal, { type: 'invoice_void', invoice: invoiceDto(inv) });
  }
  await saveVoidedInvoice(tx, inv);
  tx.emit('invoice.voided', { invoice_id: inv.id, total_cents: inv.totalCents, currency: inv.currency });
  return { record: inv, replayed: false };
}
