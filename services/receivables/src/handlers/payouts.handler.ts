import { randomUUID } from 'node:crypto';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { currencyOf } from '@acct/ledger';
import { type Books, createRecordOnce } from '@acct/posting';
import { PAYOUT, type Payout, PayoutSchema, payoutDto } from '../entities';
import { checkPayoutAmounts } from '../domain/payouts';
import { recordPayout, samePayoutContent } from '../flows/payouts';

export function registerPayoutHandlers(server: RpcServer, books: Books): void {
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
    return createRecordOnce(PAYOUT, {
      row,
      store: () => books.transact(req.ctx, (tx) => recordPayout(tx, row)),
      existing: () => books.orm.em.fork().findOne(PayoutSchema, { ...scope, externalPayoutId: b.external_payout_id }),
      same: (ex) => samePayoutContent(ex, row),
    });
  });

  registerReads(server, books.orm, {
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
