import { randomUUID } from 'node:crypto';
import { metadataOnCreate } from '@acct/contracts';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { currencyOf } from '@acct/ledger';
import { type Books, createInBooks } from '@acct/posting';
import { PAYOUT, type Payout, PayoutSchema } from '../entities';
import { checkPayoutAmounts } from '../domain/payouts';
import { recordPayout, samePayoutContent } from '../flows/payouts';
import { findPayoutByExternalId } from '../queries';

export function registerPayoutHandlers(server: RpcServer, books: Books): void {
  server.handle('payouts.create', async (req) => {
    const b = req.body;
    checkPayoutAmounts(b.gross_cents, b.fee_cents, b.net_cents);
    const row: Payout = {
      id: randomUUID(),
      ...scopeOf(req.ctx),
      externalPayoutId: b.external_payout_id,
      processor: b.processor,
      payoutDate: b.payout_date,
      grossCents: b.gross_cents,
      feeCents: b.fee_cents,
      netCents: b.net_cents,
      currency: currencyOf(b.currency),
      status: 'created',
      journalEntryId: null,
      metadata: metadataOnCreate(b.metadata),
      createdAt: new Date(),
    };
    return createInBooks(books, req.ctx, PAYOUT, row, {
      flow: recordPayout,
      find: (db) => findPayoutByExternalId(db, b.external_payout_id),
      same: (ex) => samePayoutContent(ex, row),
    });
  });

  registerReads(server, books.orm, 'payouts', {
    ...PAYOUT,
    schema: PayoutSchema,
    filters: { processor: 'processor' },
  });
}
