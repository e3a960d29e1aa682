import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, single } from '@acct/contracts';
import { type EntityManager, type RpcServer, type Scope, scopeOf, registerReads } from '@acct/kit';
import { type Books, createOnce, sameJson } from '@acct/posting';
import { CustomerSchema, type Invoice, InvoiceSchema, invoiceDto } from '../entities';
import { currencyOf, priceLines, requireOrder } from '@acct/ledger';
import { invoicePosting } from '../domain/postings';

/** The caller's content of a create, as compared on a retry. */
const invoiceContent = (i: Pick<Invoice, 'customerId' | 'invoiceNumber' | 'issueDate' | 'dueDate' | 'currency' | 'memo' | 'lineItems'>) => ({
  customer_id: i.customerId,
  invoice_number: i.invoiceNumber,
  issue_date: i.issueDate,
  due_date: i.dueDate,
  currency: i.currency,
  memo: i.memo,
  line_items: i.lineItems.map((l) => ({ description: l.description, quantity: l.quantity, unit_amount_cents: l.unit_amount_cents })),
});

export async function requireCustomer(em: EntityManager, scope: Scope, customerId: string): Promise<void> {
  const c = await em.findOne(CustomerSchema, { id: customerId, ...scope }, { fields: ['id'] });
  if (!c) {
    throw new AppError('not_found', `Customer ${customerId} was not found.`, [
      { field: '/customer_id', issue: 'not_found', message: 'No such customer in this organization and environment.' },
    ]);
  }
}

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
    const em = orm.em.fork();
    await requireCustomer(em, scope, b.customer_id);
    return createOnce({
      constraint: 'invoices_external_id',
      create: async () => {
        await em.insert(InvoiceSchema, row);
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
    const { invoice, replayed } = await books.transact(req.ctx, async (tx) => {
      const inv = await tx.em.findOne(InvoiceSchema, { id: req.params.id, ...tx.scope }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!inv) throw AppError.notFound('Invoice', req.params.id);
      // Posting twice is a repeated action: current state, no second ledger effect.
      if (inv.status !== 'draft') return { invoice: inv, replayed: true };
      inv.postedAt = new Date();
      if (inv.totalCents === 0) {
        inv.status = 'paid'; // nothing to collect, nothing to book
      } else {
        inv.status = 'open';
        inv.journalEntryId = await tx.post(invoicePosting(inv), { type: 'invoice', invoice: invoiceDto(inv) });
      }
      tx.emit('invoice.posted', {
        invoice_id: inv.id,
        invoice_number: inv.invoiceNumber,
        customer_id: inv.customerId,
        total_cents: inv.totalCents,
        currency: inv.currency,
        issue_date: inv.issueDate,
        due_date: inv.dueDate,
      });
      return { invoice: inv, replayed: false };
    });
    const dto = invoiceDto(invoice);
    return { ok: true, status: 200, replayed, body: { ...single('invoice', dto), action: { type: 'posted', status: 'completed' } as const } };
  });

  registerReads(server, orm, { list: 'invoices.list', get: 'invoices.get', schema: InvoiceSchema, name: 'invoice', plural: 'invoices', label: 'Invoice', dto: invoiceDto, filters: { status: 'status', customer_id: 'customerId' } });
}
