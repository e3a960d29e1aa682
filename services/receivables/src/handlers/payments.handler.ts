import { metadataOnCreate } from '@acct/contracts';
import { type RpcServer, registerReads } from '@acct/kit';
import { accountingDate, currencyOf } from '@acct/ledger';
import { type Books, createdReply, retryOnceOnUnique } from '@acct/posting';
import { PAYMENT, PaymentSchema } from '../entities';
import { type PaymentInput, recordPayment } from '../flows/payments';

export function registerPaymentHandlers(server: RpcServer, books: Books): void {
  server.handle('payments.create', async (req) => {
    const b = req.body;
    const input: PaymentInput = {
      externalPaymentId: b.external_payment_id,
      invoiceId: b.invoice_id,
      amountCents: b.amount_cents,
      receivedAt: b.received_at,
      source: b.source ?? 'manual',
      processor: b.processor ?? null,
      currency: currencyOf(b.currency),
      eventId: null,
      metadata: metadataOnCreate(b.metadata),
    };
    accountingDate(input.receivedAt, 'received_at');
    // The same external id may race in on another invoice: the second run answers 200 or 409.
    return createdReply(PAYMENT, await retryOnceOnUnique('payments_external_id', () => books.transact(req.ctx, (tx) => recordPayment(tx, input))));
  });

  registerReads(server, books.orm, 'payments', {
    ...PAYMENT,
    schema: PaymentSchema,
    filters: { invoice_id: 'invoiceId' },
  });
}
