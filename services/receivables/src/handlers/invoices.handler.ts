import { randomUUID } from 'node:crypto';
import { actionReply, single } from '@acct/contracts';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { currencyOf, priceLines, requireOrder } from '@acct/ledger';
import { type Books, createOnce, sameJson } from '@acct/posting';
import { type Invoice, InvoiceSchema, invoiceDto } from '../entities';
import { createDraftInvoice, invoiceContent, postInvoice } from '../flows/invoices';

export function registerInvoiceHandlers(server: RpcServer, books: Books): void {
  const { orm } = books;

  server.handle('invoices.create', async (req) => {
    const b = req.body;
    const scope = scopeOf(req.ctx);
    const { lines, totalCents } = priceLines(b.line_items);
    requireOrder(b.issue_date, b.due_date, 'issue_date', 'due_date');
    const row: Invoice = {
      id: randomUUID(),
      ...scope,
      externalInvoiceId: b.external_invoice_id,
      customerId: b.customer_id,
      invoiceNumber: b.invoice_number,
      issueDate: b.issue_date,
      dueDate: b.due_date,
      currency: currencyOf(b.currency),
      memo: b.memo ?? null,
      lineItems: lines,
      totalCents,
      paidCents: 0,
      status: 'draft',
      estimateId: null,
      journalEntryId: null,
      postedAt: null,
      createdAt: new Date(),
    };
    return createOnce({
      constraint: 'invoices_external_id',
      create: async () => {
        await createDraftInvoice(books.db(req.ctx), row);
        return { ok: true, status: 201, body: single('invoice', invoiceDto(row)) };
      },
      existing: () => orm.em.fork().findOne(InvoiceSchema, { ...scope, externalInvoiceId: b.external_invoice_id }),
      same: (ex) => sameJson(invoiceContent(ex), invoiceContent(row)),
      reply: (ex) => single('invoice', invoiceDto(ex)),
      field: '/external_invoice_id',
      what: 'invoice',
    });
  });

  server.handle('invoices.post', async (req) => {
    const { invoice, replayed } = await books.transactGrouped(req.ctx, (tx) => postInvoice(tx, req.params.id));
    return { ok: true, status: 200, replayed, body: actionReply('invoice', invoiceDto(invoice), 'posted') };
  });

  registerReads(server, orm, {
    list: 'invoices.list',
    get: 'invoices.get',
    schema: InvoiceSchema,
    name: 'invoice',
    plural: 'invoices',
    label: 'Invoice',
    dto: invoiceDto,
    filters: { status: 'status', customer_id: 'customerId' },
  });
}
