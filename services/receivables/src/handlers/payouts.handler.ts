import { randomUUID } from 'node:crypto';
import { AppError, type PayoutCreateBody, type RpcRequest, list, page, single } from '@acct/contracts';
import type { RpcServer } from '@acct/kit';
import { type Books, createOnce, sameJson } from '../books';
import { type Payout, PayoutSchema, payoutDto } from '../entities';
import { currencyOf } from '../domain/lines';
import { checkPayoutAmounts } from '../domain/payouts';
import { payoutPosting } from '../domain/postings';
import { pageQuery, scopeOf } from '../domain/scope';

const payoutContent = (p: Pick<Payout, 'processor' | 'payoutDate' | 'grossCents' | 'feeCents' | 'netCents' | 'currency'>) => ({
  processor: p.processor,
  payout_date: p.payoutDate,
  gross_cents: p.grossCents,
  fee_cents: p.feeCents,
  net_cents: p.netCents,
  currency: p.currency,
});

export function registerPayoutHandlers(server: RpcServer, books: Books): void {
  const { orm } = books;

  server.handle('payouts.create', async (req: RpcRequest<PayoutCreateBody>) => {
    const b = req.body;
    const scope = scopeOf(req.ctx);
    checkPayoutAmounts(b.gross_cents, b.fee_cents, b.net_cents);
    const row: Payout = {
      id: randomUUID(),
      ...scope,
      externalPayoutId: b.external_payout_id,
      processor: b.processor,
      payoutDate: b.payout_date,
      grossCents: b.gross_cents,
      feeCents: b.fee_cents,
      netCents: b.net_cents,
      currency: currencyOf(b.currency),
      status: 'created',
      journalEntryId: null,
      createdAt: new Date(),
    };
    return createOnce({
      constraint: 'processor_payouts_external_id',
      create: () =>
        books.transact(req.ctx, async (tx) => {
          // Processor clearing → bank (net) and fees (fee); a zero payout moves nothing.
          if (row.grossCents > 0) row.journalEntryId = await tx.post(payoutPosting(row), { type: 'processor_payout', processor_payout: payoutDto(row) });
          await tx.em.insert(PayoutSchema, row);
          return { ok: true as const, status: 201 as const, body: single('processor_payout', payoutDto(row)) };
        }),
      existing: () => orm.em.fork().findOne(PayoutSchema, { ...scope, externalPayoutId: b.external_payout_id }),
      same: (ex) => sameJson(payoutContent(ex), payoutContent(row)),
      reply: (ex) => single('processor_payout', payoutDto(ex)),
      field: '/external_payout_id',
      what: 'processor payout',
    });
  });

  server.handle('payouts.list', async (req) => {
    const { limit, offset } = pageQuery(req.query);
    const where: Record<string, unknown> = { ...scopeOf(req.ctx) };
    if (req.query.processor) where.processor = req.query.processor;
    const rows = await orm.em.fork().find(PayoutSchema, where, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], limit: limit + 1, offset });
    const p = page(rows, limit, offset);
    return { ok: true, status: 200, body: list('processor_payouts', p.items.map(payoutDto), p.pagination) };
  });

  server.handle('payouts.get', async (req) => {
    const p = await orm.em.fork().findOne(PayoutSchema, { id: req.params.id, ...scopeOf(req.ctx) });
    if (!p) throw AppError.notFound('Processor payout', req.params.id);
    return { ok: true, status: 200, body: single('processor_payout', payoutDto(p)) };
  });
}
