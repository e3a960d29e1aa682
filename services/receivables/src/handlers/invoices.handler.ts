import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { requireOrder } from '@acct/ledger';
import { type Books, actionDone, createRecordOnce, newLineDocument } from '@acct/posting';
import { INVOICE, type Invoice, InvoiceSchema, NOT_VOID } from '../entities';
import { createDraftInvoice, postInvoice, sameInvoiceContent, voidInvoice } from '../flows/invoices';

export function registerInvoiceHandlers(server: RpcServer, books: Books): void {
  server.handle('invoices.create', async (req) => {
    const b = req.body;
    const doc = newLineDocument(scopeOf(req.ctx), b, () => {
      requireOrder(b.issue_date, b.due_date, 'issue_date', 'due_date');
      return { issueDate: b.issue_date, dueDate: b.due_date };
    });
    const row: Invoice = {
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
    };
    return createRecordOnce(INVOICE, {
      row,
      store: () => createDraftInvoice(books.db(req.ctx), row),
      existing: () => books.orm.em.fork().findOne(InvoiceSchema, { ...scopeOf(req.ctx), externalInvoiceId: b.external_invoice_id }),
      same: (ex) => sameInvoiceContent(ex, row),
    });
  });

  server.handle('invoices.post', async (req) => actionDone(INVOICE, 'posted', await books.transactGrouped(req.ctx, (tx) => postInvoice(tx, req.params.id))));
  server.handle('invoices.void', async (req) => actionDone(INVOICE, 'voided', await books.transact(req.ctx, (tx) => voidInvoice(tx, req.params.id, req.body.void_date))));

  registerReads(server, books.orm, {
    ...INVOICE,
    list: 'invoices.list',
    get: 'invoices.get',
    schema: InvoiceSchema,
    plural: 'invoices',
    label: 'Invoice',
    filters: { status: 'status', customer_id: 'customerId' },
  });
}
