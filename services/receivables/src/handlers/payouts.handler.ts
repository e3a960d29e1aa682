import { randomUUID } from 'node:crypto';
import { single } from '@acct/contracts';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { currencyOf } from '@acct/ledger';
import { type Books, createOnce, sameJson } from '@acct/posting';
import { type Payout, PayoutSchema, payoutDto } from '../entities';
import { checkPayoutAmounts } from '../domain/payouts';
import { payoutContent, recordPayout } from '../flows/payouts';

export function registerPayoutHandlers(server: RpcServer, books: Books): void {
  const { orm } = books;

  server.handle('payouts.create', async (req) => {
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
      create: async () => {
        await books.transact(req.ctx, (tx) => recordPayout(tx, row));
        return { ok: true, status: 201, body: single('processor_payout', payoutDto(row)) };
      },
      existing: () => orm.em.fork().findOne(PayoutSchema, { ...scope, externalPayoutId: b.external_payout_id }),
      same: (ex) => sameJson(payoutContent(ex), payoutContent(row)),
      reply: (ex) => single('processor_payout', payoutDto(ex)),
      field: '/external_payout_id',
      what: 'processor payout',
    });
  });

  registerReads(server, orm, {
    list: 'payouts.list',
    get: 'payouts.get',
    schema: PayoutSchema,
    name: 'processor_payout',
    plural: 'processor_payouts',
    label: 'Processor payout',
    dto: payoutDto,
    filters: { processor: 'processor' },
  });
}
