import { randomUUID } from 'node:crypto';
import { AppError, type Metadata } from '@acct/contracts';
import { accountingDate, reversalOf, todayUtc } from '@acct/ledger';
import { type Outcome, type Tx, sameJson } from '@acct/posting';
import { insertEntity } from '@acct/kit';
import { type Payment, PaymentSchema, invoiceDto, paymentDto } from '../entities';
import { checkPayment, statusForPaid } from '../domain/invoices';
import { paymentPosting } from '../domain/postings';
import { findPaymentByExternalId, lockInvoice } from '../queries';

export interface PaymentInput {
  externalPaymentId: string;
  invoiceId: string;
  amountCents: number;
  receivedAt: string;
  source: 'manual' | 'processor';
  processor: string | null;
  currency: string;
  eventId: string | null;
  metadata: Metadata;
}

const paymentContent = (p: Pick<Payment, 'invoiceId' | 'amountCents' | 'receivedAt' | 'source' | 'processor' | 'currency' | 'metadata'>) => ({
  invoice_id: p.invoiceId,
  amount_cents: p.amountCents,
  received_at: p.receivedAt,
  source: p.source,
  processor: p.processor,
  currency: p.currency,
  metadata: p.metadata,
});

/**
 * Records a payment inside tx. The invoice row is locked first, so concurrent payments on one
 * invoice run one after the other and each sees the balance the previous one left: no overpayment.
 * All checks run before the first write, so a refusal (AppError) leaves tx untouched.
 */
export async function recordPayment(tx: Tx, input: PaymentInput): Promise<Outcome<Payment>> {
  const inv = await lockInvoice(tx, input.invoiceId);
  if (!inv) {
    throw new AppError('not_found', `Invoice ${input.invoiceId} was not found.`, [
      { field: '/invoice_id', issue: 'not_found', message: 'No such invoice in this organization and environment.' },
    ]);
  }
  const existing = await findPaymentByExternalId(tx, input.externalPaymentId);
  if (existing) {
    if (!sameJson(paymentContent(existing), paymentContent(input))) {
      throw AppError.conflict('external_payment_id was already used for a payment with different content.', [
        { field: '/external_payment_id', issue: 'already_used', message: `Payment ${existing.id} has this external id.` },
      ]);
    }
    return { record: existing, replayed: true };
  }
  checkPayment(inv, input.amountCents);
  const receivedDate = accountingDate(input.receivedAt, 'received_at');
  await tx.assertOpen(receivedDate, '/received_at'); // before the first change: an event then fails cleanly
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
  await insertEntity(tx.em, PaymentSchema, payment);
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
  return { record: payment, replayed: false };
}

/**
 * Refunds a posted payment in full: a reversing entry dated today (the original is kept), the
 * invoice's paid amount and status go back. The caller holds the payment's lock.
 */
export async function refundPayment(tx: Tx, payment: Payment): Promise<void> {
  const inv = await lockInvoice(tx, payment.invoiceId);
  if (!inv) throw new AppError('internal_error', `Invoice ${payment.invoiceId} of payment ${payment.id} is missing.`);
  inv.paidCents -= payment.amountCents;
  inv.status = statusForPaid(inv.totalCents, inv.paidCents);
  payment.status = 'refunded';
  const reversal = reversalOf({ id: payment.journalEntryId, sourceType: 'payment', sourceId: payment.id, lines: paymentPosting(payment).lines }, todayUtc(), {
    memo: 'Full refund of a customer payment',
  });
  payment.refundEntryId = await tx.post(reversal, { type: 'payment_refund', payment: paymentDto(payment), invoice: invoiceDto(inv) });
}
