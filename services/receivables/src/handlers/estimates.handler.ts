import { AppError, type TrustedContext, single } from '@acct/contracts';
import { type RpcClient, type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { type Books, createInBooks, refuseTakenExternalId, updateInBooks } from '@acct/posting';
import { ESTIMATE, EstimateSchema, INVOICE } from '../entities';
import { ESTIMATE_ONCE, convertEstimate, moveEstimate, newEstimate, updateEstimate } from '../flows/estimates';

/** Asks the documents service for the payment terms of the invoice defaults (net 30 when never set). */
type TermsSource = (ctx: TrustedContext) => Promise<number>;

export function termsFromDocuments(rpc: Pick<RpcClient, 'call'>): TermsSource {
  return async (ctx) => {
    const reply = await rpc.call('settings.invoice_defaults.get', { ctx, params: {}, query: {}, body: {} });
    if (reply.ok) return reply.body.data.payment_terms_days;
    // Never guess the terms: the conversion is retry-safe, so the caller retries later.
    throw new AppError('service_unavailable', `The invoice defaults (payment terms) are unavailable: ${reply.error.message}`);
  };
}

export function registerEstimateHandlers(server: RpcServer, books: Books, terms: TermsSource): void {
  server.handle('estimates.create', (req) => createInBooks(books, req.ctx, ESTIMATE, newEstimate(scopeOf(req.ctx), req.body), ESTIMATE_ONCE));

  server.handle('estimates.update', (req) => updateInBooks(books, req.ctx, ESTIMATE, (tx) => updateEstimate(tx, req.params.id, req.body)));

  server.handle('estimates.status', async (req) => {
    const { record, replayed } = await books.transact(req.ctx, (tx) => moveEstimate(tx, req.params.id, req.body.status));
    return { ok: true, status: 200, replayed, body: single('estimate', { id: record.id, status: record.status }) };
  });

  server.handle('estimates.convert', async (req) => {
    const converted = () => books.transact(req.ctx, (tx) => convertEstimate(tx, req.params.id, req.body ?? {}, () => terms(req.ctx)));
    const { invoiceId, replayed } = await refuseTakenExternalId(INVOICE, converted);
    return { ok: true, status: 200, replayed, body: { data: { estimate_id: req.params.id, invoice_id: invoiceId, invoice_status: 'draft' as const } } };
  });

  registerReads(server, books.orm, 'estimates', {
    ...ESTIMATE,
    schema: EstimateSchema,
    filters: { status: 'status', customer_id: 'customerId' },
  });
}
