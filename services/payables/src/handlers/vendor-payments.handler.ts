import { randomUUID } from 'node:crypto';
import { actionReply, single } from '@acct/contracts';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { accountingDate, currencyOf } from '@acct/ledger';
import { type Books, retryOnceOnUnique } from '@acct/posting';
import { type VendorPayment, VendorPaymentSchema, vendorPaymentDto } from '../entities';
import { cashAccountCode } from '../domain/accounts';
import { checkAllocationShape } from '../domain/vendor-payments';
import { createVendorPayment, postVendorPayment, reverseVendorPayment } from '../flows/vendor-payments';

export function registerVendorPaymentHandlers(server: RpcServer, books: Books): void {
  const { orm } = books;

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
      journalEntryId: null,
      reversalEntryId: null,
      reversalReason: null,
      postedAt: null,
      reversedAt: null,
      createdAt: new Date(),
    };
    const post = (b.status ?? 'posted') === 'posted';
    // Two retries that lock no common bill can both reach the insert: the loser runs again and
    // answers from the winner's row (200 replay or 409).
    const { payment, replayed } = await retryOnceOnUnique('vendor_payments_external_id', () =>
      books.transact(req.ctx, (tx) => createVendorPayment(tx, { ...row, allocations: row.allocations.map((a) => ({ ...a })) }, post)),
    );
    return { ok: true, status: replayed ? 200 : 201, replayed, body: single('vendor_payment', vendorPaymentDto(payment)) };
  });

  server.handle('vendor_payments.post', async (req) => {
    const { payment, replayed } = await books.transact(req.ctx, (tx) => postVendorPayment(tx, req.params.id));
    return { ok: true, status: 200, replayed, body: actionReply('vendor_payment', vendorPaymentDto(payment), 'posted') };
  });

  server.handle('vendor_payments.reverse', async (req) => {
    const { payment, replayed } = await books.transact(req.ctx, (tx) => reverseVendorPayment(tx, req.params.id, req.body.reversal_reason));
    return { ok: true, status: 200, replayed, body: actionReply('vendor_payment', vendorPaymentDto(payment), 'reversed') };
  });

  registerReads(server, orm, {
    list: 'vendor_payments.list',
    get: 'vendor_payments.get',
    schema: VendorPaymentSchema,
    name: 'vendor_payment',
    plural: 'vendor_payments',
    label: 'Vendor payment',
    dto: vendorPaymentDto,
    filters: { vendor_id: 'vendorId', status: 'status' },
  });
}
