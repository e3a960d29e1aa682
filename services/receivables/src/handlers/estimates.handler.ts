import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, single } from '@acct/contracts';
import { type RpcServer, scopeOf, registerReads } from '@acct/kit';
import { type Books, createOnce, isUniqueViolation, sameJson } from '@acct/posting';
import { type Estimate, EstimateSchema, type Invoice, InvoiceSchema, estimateDto } from '../entities';
import { checkEstimateMove } from '../domain/estimates';
import { currencyOf, priceLines, addDays, requireOrder, todayUtc } from '@acct/ledger';
import { requireCustomer } from './invoices.handler';

/** Net 30 until invoice defaults (settings) land. */
const DEFAULT_TERMS_DAYS = 30;

const estimateContent = (e: Pick<Estimate, 'customerId' | 'issueDate' | 'expiryDate' | 'currency' | 'memo' | 'lineItems'>) => ({
  customer_id: e.customerId,
  issue_date: e.issueDate,
  expiry_date: e.expiryDate,
  currency: e.currency,
  memo: e.memo,
  line_items: e.lineItems.map((l) => ({ description: l.description, quantity: l.quantity, unit_amount_cents: l.unit_amount_cents })),
});

export function registerEstimateHandlers(server: RpcServer, books: Books): void {
  const { orm } = books;

  server.handle('estimates.create', async (req) => {
    const b = req.body;
    const scope = scopeOf(req.ctx);
    const { lines, totalCents } = priceLines(b.line_items);
    if (b.expiry_date) requireOrder(b.issue_date, b.expiry_date, 'issue_date', 'expiry_date');
    const row: Estimate = {
      id: randomUUID(),
      ...scope,
      externalEstimateId: b.external_estimate_id,
      customerId: b.customer_id,
      issueDate: b.issue_date,
      expiryDate: b.expiry_date ?? null,
      currency: currencyOf(b.currency),
      memo: b.memo ?? null,
      lineItems: lines,
      totalCents,
      status: 'draft',
      invoiceId: null,
      createdAt: new Date(),
    };
    const em = orm.em.fork();
    await requireCustomer(em, scope, b.customer_id);
    return createOnce({
      constraint: 'estimates_external_id',
      create: async () => {
        await em.insert(EstimateSchema, row);
        return { ok: true, status: 201, body: single('estimate', estimateDto(row)) };
      },
      existing: () => orm.em.fork().findOne(EstimateSchema, { ...scope, externalEstimateId: b.external_estimate_id }),
      same: (ex) => sameJson(estimateContent(ex), estimateContent(row)),
      reply: (ex) => single('estimate', estimateDto(ex)),
      field: '/external_estimate_id',
      what: 'estimate',
    });
  });

  server.handle('estimates.status', async (req) => {
    const scope = scopeOf(req.ctx);
    const { estimate, replayed } = await orm.em.fork().transactional(async (em) => {
      const e = await em.findOne(EstimateSchema, { id: req.params.id, ...scope }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!e) throw AppError.notFound('Estimate', req.params.id);
      const move = checkEstimateMove(e.status, req.body.status);
      if (move === 'move') e.status = req.body.status;
      return { estimate: e, replayed: move === 'same' };
    });
    return { ok: true, status: 200, replayed, body: single('estimate', { id: estimate.id, status: estimate.status }) };
  });

  server.handle('estimates.convert', async (req) => {
    const scope = scopeOf(req.ctx);
    const b = req.body ?? {};
    try {
      const { invoiceId, replayed } = await orm.em.fork().transactional(async (em) => {
        const e = await em.findOne(EstimateSchema, { id: req.params.id, ...scope }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        if (!e) throw AppError.notFound('Estimate', req.params.id);
        if (e.status === 'converted' && e.invoiceId) return { invoiceId: e.invoiceId, replayed: true };
        if (e.status !== 'accepted') {
          throw AppError.conflict(`Estimate ${e.id} is ${e.status}: only an accepted estimate can be converted.`, [
            { field: '/status', issue: `estimate_${e.status}`, message: 'Accept the estimate first.' },
          ]);
        }
        const issueDate = b.issue_date ?? todayUtc();
        const dueDate = b.due_date ?? addDays(issueDate, DEFAULT_TERMS_DAYS);
        requireOrder(issueDate, dueDate, 'issue_date', 'due_date');
        const invoice: Invoice = {
          id: randomUUID(),
          ...scope,
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
          createdAt: new Date(),
        };
        await em.insert(InvoiceSchema, invoice);
        e.status = 'converted';
        e.invoiceId = invoice.id;
        return { invoiceId: invoice.id, replayed: false };
      });
      return { ok: true, status: 200, replayed, body: { data: { estimate_id: req.params.id, invoice_id: invoiceId, invoice_status: 'draft' } } };
    } catch (e) {
      if (isUniqueViolation(e, 'invoices_external_id')) {
        throw AppError.conflict('external_invoice_id is already used by another invoice.', [
          { field: '/external_invoice_id', issue: 'already_used', message: 'Choose another external_invoice_id.' },
        ]);
      }
      throw e;
    }
  });

  registerReads(server, orm, { list: 'estimates.list', get: 'estimates.get', schema: EstimateSchema, name: 'estimate', plural: 'estimates', label: 'Estimate', dto: estimateDto, filters: { status: 'status', customer_id: 'customerId' } });
}
