import { randomUUID } from 'node:crypto';
import { metadataOnCreate } from '@acct/contracts';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { accountingDate, currencyOf } from '@acct/ledger';
import { type Books, actionDone, createdReply, retryOnceOnUnique } from '@acct/posting';
import { VENDOR_PAYMENT, type VendorPayment, VendorPaymentSchema, unposted } from '../entities';
import { cashAccountCode } from '../domain/accounts';
import { checkAllocationShape } from '../domain/vendor-payments';
import { createVendorPayment, postVendorPayment, reverseVendorPayment } from '../flows/vendor-payments';

export function registerVendorPaymentHandlers(server: RpcServer, books: Books): void {
  server.handle('vendor_payments.create', async (req) => {
    const b = req.body;
    const scope = scopeOf(req.ctx);
    checkAllocationShape(b.amount_cents, b.allocations);
    const row: VendorPayment = {
      id: randomUUID(),
      ...scope,
      externalVendorPaymentId: b.external_vendor_payment_id,
      vendorId: b.vendor_id,
      amountCents: b.amount_cents,
      paymentDate: accountingDate(b.payment_date, 'payment_date'),
      cashAccountCode: cashAccountCode(scope, b.cash_account_id),
      allocations: b.allocations.map((a) => ({ bill_id: a.bill_id.toLowerCase(), amount_cents: a.amount_cents })),
      currency: currencyOf(b.currency),
      memo: b.memo ?? null,
      status: 'ready',
      metadata: metadataOnCreate(b.metadata),
      ...unposted(),
      createdAt: new Date(),
    };
    const post = (b.status ?? 'posted') === 'posted';
    // Two retries that lock no common bill can both reach the insert: the loser runs again and
    // answers from the winner's row (200 replay or 409).
    const created = await retryOnceOnUnique('vendor_payments_external_id', () =>
      books.transact(req.ctx, (tx) => createVendorPayment(tx, { ...row, allocations: row.allocations.map((a) => ({ ...a })) }, post)),
    );
    return createdReply(VENDOR_PAYMENT, created);
  });

  server.handle('vendor_payments.post', async (req) => actionDone(VENDOR_PAYMENT, 'posted', await books.transact(req.ctx, (tx) => postVendorPayment(tx, req.params.id))));

  server.handle('vendor_payments.reverse', async (req) =>
    actionDone(VENDOR_PAYMENT, 'reversed', await books.transact(req.ctx, (tx) => reverseVendorPayment(tx, req.params.id, req.body.reversal_reason))),
  );

  registerReads(server, books.orm, 'vendor_payments', {
    ...VENDOR_PAYMENT,
    schema: VendorPaymentSchema,
    filters: { vendor_id: 'vendorId', status: 'status' },
  });
}
