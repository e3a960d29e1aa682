import { AppError } from '@acct/contracts';
import { type Db, type Outcome, type Tx, sameDocumentContent } from '@acct/posting';
import { type Invoice, InvoiceSchema, invoiceDto } from '../entities';
import { invoicePosting } from '../domain/postings';
import { lockInvoiceRow, requireCustomer, savePostedInvoice } from '../queries';

/** The caller's content of a create, as compared on a retry. */
export const sameInvoiceContent = sameDocumentContent<Invoice>((i) => ({ customer_id: i.customerId, invoice_number: i.invoiceNumber, due_date: i.dueDate }));

/** Stores a draft invoice for an existing customer (nothing is booked until it is posted). */
export async function createDraftInvoice(db: Db, row: Invoice): Promise<Invoice> {
  await requireCustomer(db, row.customerId);
  await db.em.insert(InvoiceSchema, row);
  return row;
}

/**
 * Posts a draft: Dr A/R / Cr revenue on the issue date, status open (or paid when the total is 0),
 * invoice.posted for the app. Posting a posted invoice again is a repeated action: its current state,
 * no second ledger effect.
 */
export async function postInvoice(tx: Tx, id: string): Promise<Outcome<Invoice>> {
  const inv = await lockInvoiceRow(tx, id);
  if (!inv) throw AppError.notFound('Invoice', id);
  if (inv.status !== 'draft') return { record: inv, replayed: true };
  inv.postedAt = new Date();
  if (inv.totalCents === 0) {
    inv.status = 'paid'; // nothing to collect, nothing to book
  } else {
    inv.status = 'open';
    inv.journalEntryId = await tx.post(invoicePosting(inv), { type: 'invoice', invoice: invoiceDto(inv) });
  }
  await savePostedInvoice(tx, inv);
  tx.emit('invoice.posted', {
    invoice_id: inv.id,
    invoice_number: inv.invoiceNumber,
    customer_id: inv.customerId,
    total_cents: inv.totalCents,
    currency: inv.currency,
    issue_date: inv.issueDate,
    due_date: inv.dueDate,
  });
  return { record: inv, replayed: false };
}
