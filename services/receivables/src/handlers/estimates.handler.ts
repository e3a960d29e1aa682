import { randomUUID } from 'node:crypto';
import { AppError, type TrustedContext, single } from '@acct/contracts';
import { type RpcClient, type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { currencyOf, priceLines, requireOrder } from '@acct/ledger';
import { type Books, createOnce, isUniqueViolation, sameJson } from '@acct/posting';
import { type Estimate, EstimateSchema, estimateDto } from '../entities';
import { convertEstimate, createEstimate, estimateContent, moveEstimate } from '../flows/estimates';

/** Asks the documents service for the payment terms of the invoice defaults (net 30 when never set). */
export type TermsSource = (ctx: TrustedContext) => Promise<number>;

export function termsFromDocuments(rpc: Pick<RpcClient, 'call'>): TermsSource {
  return async (ctx) => {
    const reply = await rpc.call('settings.invoice_defaults.get', { ctx, params: {}, query: {}, body: {} });
    if (reply.ok) return reply.body.data.payment_terms_days;
    // Never guess the terms: the conversion is retry-safe, so the caller retries later.
    throw new AppError('service_unavailable', `The invoice defaults (payment terms) are unavailable: ${reply.error.message}`);
  };
}

export function registerEstimateHandlers(server: RpcServer, books: Books, terms: TermsSource): void {
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
    return createOnce({
      constraint: 'estimates_external_id',
      create: async () => {
        await createEstimate(books.db(req.ctx), row);
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
    const { estimate, replayed } = await books.transact(req.ctx, (tx) => moveEstimate(tx, req.params.id, req.body.status));
    return { ok: true, status: 200, replayed, body: single('estimate', { id: estimate.id, status: estimate.status }) };
  });

  server.handle('estimates.convert', async (req) => {
    try {
      const { invoiceId, replayed } = await books.transact(req.ctx, (tx) => convertEstimate(tx, req.params.id, req.body ?? {}, () => terms(req.ctx)));
      return { ok: true, status: 200, replayed, body: { data: { estimate_id: req.params.id, invoice_id: invoiceId, invoice_status: 'draft' as const } } };
    } catch (e) {
      if (isUniqueViolation(e, 'invoices_external_id')) {
        throw AppError.conflict('external_invoice_id is already used by another invoice.', [
          { field: '/external_invoice_id', issue: 'already_used', message: 'Choose another external_invoice_id.' },
        ]);
      }
      throw e;
    }
  });

  registerReads(server, orm, {
    list: 'estimates.list',
    get: 'estimates.get',
    schema: EstimateSchema,
    name: 'estimate',
    plural: 'estimates',
    label: 'Estimate',
    dto: estimateDto,
    filters: { status: 'status', customer_id: 'customerId' },
  });
}
