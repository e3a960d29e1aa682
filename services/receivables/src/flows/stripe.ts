import { randomUUID } from 'node:crypto';
import type { Tx } from '@acct/posting';
import type { Payout } from '../entities';
import { type StripeEvent, type StripeMapping, mapStripeEvent } from '../domain/stripe';
import { findPaymentByExternalId, findPayoutByExternalId, lockInvoice } from '../queries';
import { type EventInput, type Outcome, lockedOutcome, processPaymentReceived, processPaymentRefunded } from './events';
import { recordPayout } from './payouts';

const PROCESSOR = 'stripe';

type Mapped<K extends StripeMapping['kind']> = Extract<StripeMapping, { kind: K }>;

/**
 * Applies a verified Stripe event inside the transaction that stores it, through the flows POST
 * /events and POST /processor-payouts use: a payment.received payload, a payment.refunded payload or
 * a payout row. Nothing here posts on its own.
 */
export async function applyStripeEvent(tx: Tx, eventId: string, input: EventInput): Promise<Outcome> {
  const m = mapStripeEvent(input.payload as unknown as StripeEvent);
  switch (m.kind) {
    case 'stored':
    case 'failed':
      return { status: m.kind, details: m.details, paymentId: null };
    case 'payment':
      return applyPayment(tx, eventId, m);
    case 'refund': {
      const known = m.chargeId !== null && !(await findPaymentByExternalId(tx, m.externalPaymentId)) && (await findPaymentByExternalId(tx, m.chargeId));
      return processPaymentRefunded(tx, { external_payment_id: known ? m.chargeId! : m.externalPaymentId, amount_cents: m.amountCents });
    }
    case 'payout':
      return applyPayout(tx, m);
  }
}

/** A payment: to our own invoice id (looked up) or an external one, once per Stripe payment. */
async function applyPayment(tx: Tx, eventId: string, m: Mapped<'payment'>): Promise<Outcome> {
  let externalInvoiceId: string;
  if ('id' in m.invoice) {
    // Our own invoice id, looked up in the scope of the processor's app: another organization's
    // invoice is not found. (Locked: the payment flow locks it next anyway.)
    const inv = await lockInvoice(tx, m.invoice.id);
    if (!inv) {
      return {
        status: 'failed',
        details: [{ field: '/data/object/metadata/invoice_id', issue: 'invoice_not_found', message: `No invoice ${m.invoice.id} in this organization and environment.` }],
        paymentId: null,
      };
    }
    externalInvoiceId = inv.externalInvoiceId;
  } else {
    externalInvoiceId = m.invoice.externalId;
  }
  // The same Stripe payment can arrive twice (payment_intent.succeeded, then invoice.paid).
  const recorded = await findPaymentByExternalId(tx, m.externalPaymentId);
  if (recorded) {
    return {
      status: 'stored',
      details: [{ field: '/data/object', issue: 'already_recorded', message: `Payment ${recorded.id} already records ${m.externalPaymentId}.` }],
      paymentId: recorded.id,
    };
  }
  return processPaymentReceived(tx, eventId, {
    external_payment_id: m.externalPaymentId,
    external_invoice_id: externalInvoiceId,
    amount_cents: m.amountCents,
    currency: 'USD',
    processor: PROCESSOR,
    received_at: m.receivedAt,
  });
}

/** A payout: recorded once per Stripe payout id, unless its date is in a locked period. */
async function applyPayout(tx: Tx, m: Mapped<'payout'>): Promise<Outcome> {
  const existing = await findPayoutByExternalId(tx, m.externalPayoutId);
  if (existing) {
    return {
      status: 'stored',
      details: [{ field: '/data/object/id', issue: 'already_recorded', message: `Processor payout ${existing.id} has external_payout_id ${m.externalPayoutId}.` }],
      paymentId: null,
    };
  }
  const row: Payout = {
    id: randomUUID(),
    ...tx.scope,
    externalPayoutId: m.externalPayoutId,
    processor: PROCESSOR,
    payoutDate: m.payoutDate,
    grossCents: m.grossCents,
    feeCents: m.feeCents,
    netCents: m.netCents,
    currency: 'USD',
    status: 'created',
    journalEntryId: null,
    metadata: {},
    createdAt: new Date(),
  };
  const locked = await lockedOutcome(tx, row.payoutDate, '/data/object');
  if (locked) return locked;
  await recordPayout(tx, row);
  return { status: 'processed', details: [], paymentId: null };
}
