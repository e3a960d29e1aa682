import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, single } from '@acct/contracts';
import { type RpcServer, registerReads } from '@acct/kit';
import { type Books, type Tx, retryOnceOnUnique, sameJson } from '@acct/posting';
import { InvoiceSchema, type Payment, PaymentSchema, invoiceDto, paymentDto } from '../entities';
import { checkPayment, statusForPaid } from '../domain/invoices';
import { currencyOf, accountingDate } from '@acct/ledger';
import { paymentPosting } from '../domain/postings';

export interface PaymentInput {
  externalPaymentId: string;
  invoiceId: string;
  amountCents: number;
  receivedAt: string;
  source: 'manual' | 'processor';
  processor: string | null;
  currency: string;
  eventId: string | null;
}

const paymentContent = (p: Pick<Payment, 'invoiceId' | 'amountCents' | 'receivedAt' | 'source' | 'processor' | 'currency'>) => ({
  invoice_id: p.invoiceId,
  amount_cents: p.amountCents,
  received_at: p.receivedAt,
  source: p.source,
  processor: p.processor,
  currency: p.currency,
});

/**
 * Records a payment inside tx. The invoice row is locked first, so concurrent payments on one
 * invoice run one after the other and each sees the balance the previous one left: no overpayment.
 * All checks run before the first write, so a refusal (AppError) leaves tx untouched.
 */
export async function recordPayment(tx: Tx, input: PaymentInput): Promise<{ payment: Payment; replayed: boolean }> {
  const inv = await tx.em.findOne(InvoiceSchema, { id: input.invoiceId, ...tx.scope }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!inv) {
    throw new AppError('not_found', `Invoice ${input.invoiceId} was not found.`, [
      { field: '/invoice_id', issue: 'not_found', message: 'No such invoice in this organization and environment.' },
    ]);
  }
  const existing = await tx.em.findOne(PaymentSchema, { ...tx.scope, externalPaymentId: input.externalPaymentId });
  if (existing) {
    const same = sameJson(paymentContent(existing), paymentContent(input as unknown as Payment));
    if (!same) {
      throw AppError.conflict('external_payment_id was already used for a payment with different content.', [
        { field: '/external_payment_id', issue: 'already_used', message: `Payment ${existing.id} has this external id.` },
      ]);
    }
    return { payment: existing, replayed: true };
  }
  checkPayment(inv, input.amountCents);
  const receivedDate = accountingDate(input.receivedAt, 'received_at');
  const payment: Payment = {
    id: randomUUID(),
    ...tx.scope,
    ...input,
    customerId: inv.customerId,
    receivedDate,
    status: 'posted',
    journalEntryId: '',
    refundEntryId: null,
    createdAt: new Date(),
  };
  inv.paidCents += input.amountCents;
  inv.status = statusForPaid(inv.totalCents, inv.paidCents);
  payment.journalEntryId = await tx.post(paymentPosting(payment), { type: 'payment', payment: paymentDto(payment), invoice: invoiceDto(inv) });
  await tx.em.insert(PaymentSchema, payment);
  tx.emit('payment.posted', { payment_id: payment.id, invoice_id: inv.id, amount_cents: payment.amountCents, currency: payment.currency });
  if (inv.status === 'paid') {
    tx.emit('invoice.paid', { invoice_id: inv.id, amount_paid_cents: inv.paidCents, total_cents: inv.totalCents, currency: inv.currency });
  } else {
    tx.emit('invoice.partially_paid', {
      invoice_id: inv.id,
      amount_paid_cents: inv.paidCents,
      balance_due_cents: inv.totalCents - inv.paidCents,
      total_cents: inv.totalCents,
      currency: inv.currency,
    });
  }
  return { payment, replayed: false };
}

export function registerPaymentHandlers(server: RpcServer, books: Books): void {
  const { orm } = books;

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
    };
    accountingDate(input.receivedAt, 'received_at');
    // The same external id may race in on another invoice: the second run answers 200 or 409.
    const result = await retryOnceOnUnique('payments_external_id', () => books.transact(req.ctx, (tx) => recordPayment(tx, input)));
    const { payment, replayed } = result;
    return { ok: true, status: replayed ? 200 : 201, replayed, body: single('payment', paymentDto(payment)) };
  });

  registerReads(server, orm, { list: 'payments.list', get: 'payments.get', schema: PaymentSchema, name: 'payment', plural: 'payments', label: 'Payment', dto: paymentDto, filters: { invoice_id: 'invoiceId' } });
}
