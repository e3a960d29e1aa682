import { randomUUID } from 'node:crypto';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { type Books, actionDone, createInBooks, updateInBooks } from '@acct/posting';
import { INVOICE, InvoiceSchema } from '../entities';
import { type DraftPost, POST_DRAFTS_BATCH } from '../queries';
import { INVOICE_ONCE, newInvoice, postInvoice, updateInvoice, voidInvoice } from '../flows/invoices';

export function registerInvoiceHandlers(server: RpcServer, books: Books): void {
  server.handle('invoices.create', (req) => createInBooks(books, req.ctx, INVOICE, newInvoice(scopeOf(req.ctx), req.body), INVOICE_ONCE));

  server.handle('invoices.update', (req) => updateInBooks(books, req.ctx, INVOICE, (tx) => updateInvoice(tx, req.params.id, req.body)));

  server.handle('invoices.post', async (req) => {
    // Its group locks every draft it posts at once (POST_DRAFTS_BATCH), a group of one too.
    const arg = { id: req.params.id, entryId: randomUUID() };
    const done = await books.transactGrouped(req.ctx, (tx, batched?: DraftPost) => postInvoice(tx, req.params.id, batched!), { kind: POST_DRAFTS_BATCH, arg });
    return actionDone(INVOICE, 'posted', done);
  });
  server.handle('invoices.void', async (req) => actionDone(INVOICE, 'voided', await books.transact(req.ctx, (tx) => voidInvoice(tx, req.params.id, req.body.void_date))));

  registerReads(server, books.orm, 'invoices', {
    ...INVOICE,
    schema: InvoiceSchema,
    filters: { status: 'status', customer_id: 'customerId' },
  });
}
