import { randomUUID } from 'node:crypto';
import { single } from '@acct/contracts';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { type Books, actionDone, createRecordOnce, refuseTakenExternalId } from '@acct/posting';
import { INVOICE, type Invoice, InvoiceSchema, invoiceDto } from '../entities';
import { POST_DRAFTS_BATCH } from '../queries';
import { createDraftInvoice, newInvoice, postInvoice, sameInvoiceContent, updateInvoice, voidInvoice } from '../flows/invoices';

export function registerInvoiceHandlers(server: RpcServer, books: Books): void {
  server.handle('invoices.create', async (req) => {
    const b = req.body;
    const row = newInvoice(scopeOf(req.ctx), b);
    return createRecordOnce(INVOICE, {
      row,
      store: () => createDraftInvoice(books.db(req.ctx), row),
      existing: () => books.orm.em.fork().findOne(InvoiceSchema, { ...scopeOf(req.ctx), externalInvoiceId: b.external_invoice_id }),
      same: (ex) => sameInvoiceContent(ex, row),
    });
  });

  server.handle('invoices.update', async (req) => {
    const invoice = await refuseTakenExternalId(INVOICE, () => books.transact(req.ctx, (tx) => updateInvoice(tx, req.params.id, req.body)));
    return { ok: true, status: 200, body: single('invoice', invoiceDto(invoice)) };
  });

  server.handle('invoices.post', async (req) => {
    // Its group locks and marks every draft it posts at once (POST_DRAFTS_BATCH), a group of one too.
    const arg = { id: req.params.id, entryId: randomUUID() };
    const done = await books.transactGrouped(req.ctx, (tx, marked?: Invoice | null) => postInvoice(tx, req.params.id, marked), { kind: POST_DRAFTS_BATCH, arg });
    return actionDone(INVOICE, 'posted', done);
  });
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
