import { createHash, randomUUID } from 'node:crypto';
import {
  AppError,
  type ErrorDetail,
  type EventSource,
  INBOUND_ACTIVE,
  INBOUND_PLANNED,
  INBOUND_STORED_ONLY,
  canonicalJson,
  compileBody,
  isAppError,
  schemas,
  toDetails,
} from '@acct/contracts';
import { todayUtc } from '@acct/ledger';
import type { Db, Tx } from '@acct/posting';
import type { InboundEvent } from '../entities';
import { findFirstEvent, findInvoiceIdByExternalId, insertInboundEvent, lockPaymentByExternalId } from '../queries';
import { recordPayment, refundPayment } from './payments';

const validPaymentReceived = compileBody(schemas.receivables.paymentReceivedPayload);
const validPaymentRefunded = compileBody(schemas.receivables.paymentRefundedPayload);

export interface EventInput {
  externalEventId: string;
  eventType: string;
  payload: Record<string, unknown>;
  idempotencyKey: string | null;
  /** api (POST /events) unless a payment processor's webhook brought it. */
  source?: EventSource;
  sourceId?: string | null;
}

/** What applying an event did: its status, why (details) and the payment it touched. */
export type Outcome = Pick<InboundEvent, 'status' | 'details' | 'paymentId'>;

export function eventHash(type: string, payload: unknown): string {
  return createHash('sha256')
    .update(canonicalJson([type, payload]))
    .digest('hex');
}

/** Supported, stored-only, planned (400) or unknown (400): SPEC.md §6. */
export function classifyEvent(type: string): 'active' | 'stored' {
  if ((INBOUND_ACTIVE as readonly string[]).includes(type)) return 'active';
  if ((INBOUND_STORED_ONLY as readonly string[]).includes(type)) return 'stored';
  const planned = (INBOUND_PLANNED as readonly string[]).includes(type);
  throw AppError.validation(planned ? `Event type ${type} is planned and not accepted today.` : `Event type ${type} is not supported.`, [
    { field: '/event_type', issue: planned ? 'planned_event_type' : 'unsupported_event_type', message: `Supported: ${[...INBOUND_ACTIVE, ...INBOUND_STORED_ONLY].join(', ')}.` },
  ]);
}

/**
 * The first event with this external id or Idempotency-Key, when it is the same event (type and
 * payload hash); null when there is none; 409 when it differs.
 */
export async function duplicateEvent(db: Db, input: EventInput, hash: string): Promise<InboundEvent | null> {
  const first = await findFirstEvent(db, input.source ?? 'api', input.externalEventId, input.idempotencyKey ?? undefined);
  if (!first) return null;
  if (first.eventType !== input.eventType || first.payloadHash !== hash) {
    throw AppError.conflict('This external_event_id (or Idempotency-Key) was already used for an event with another type or payload.', [
      { field: first.externalEventId === input.externalEventId ? '/external_event_id' : 'Idempotency-Key', issue: 'already_used', message: `Event ${first.id} has it.` },
    ]);
  }
  return first;
}

const payloadDetails = (errors: Parameters<typeof toDetails>[0]): ErrorDetail[] => toDetails(errors).map((d) => ({ ...d, field: `/payload${d.field === '/' ? '' : d.field}` }));

/** payment.received: validated, matched by external_invoice_id, posted as a payment; else failed. */
export async function processPaymentReceived(tx: Tx, eventId: string, payload: Record<string, unknown>): Promise<Outcome> {
  if (!validPaymentReceived(payload)) return { status: 'failed', details: payloadDetails(validPaymentReceived.errors), paymentId: null };
  const p = payload as { external_payment_id: string; external_invoice_id: string; amount_cents: number; currency?: string; processor?: string; received_at: string };
  if (p.currency !== undefined && p.currency !== 'USD') {
    return { status: 'failed', details: [{ field: '/payload/currency', issue: 'unsupported_currency', message: 'Only USD is accepted today.' }], paymentId: null };
  }
  const invoiceId = await findInvoiceIdByExternalId(tx, p.external_invoice_id);
  if (!invoiceId) {
    return {
      status: 'failed',
      details: [{ field: '/payload/external_invoice_id', issue: 'invoice_not_found', message: `No invoice has external_invoice_id ${p.external_invoice_id}.` }],
      paymentId: null,
    };
  }
  try {
    const { record: payment } = await recordPayment(tx, {
      externalPaymentId: p.external_payment_id,
      invoiceId,
      amountCents: p.amount_cents,
      receivedAt: p.received_at,
      source: 'processor',
      processor: p.processor ?? null,
      currency: 'USD',
      eventId,
      metadata: {},
    });
    return { status: 'processed', details: [], paymentId: payment.id };
  } catch (e) {
    // recordPayment checks before it writes, so a refusal leaves the transaction clean.
    if (!isAppError(e)) throw e;
    const details = e.details.length ? e.details : [{ field: '/payload', issue: e.code, message: e.message }];
    return { status: 'failed', details: details.map((d) => ({ ...d, field: d.field.startsWith('/payload') ? d.field : `/payload${d.field}` })), paymentId: null };
  }
}

/**
 * An inbound event that would post into the locked period (API-DECISIONS §12): stored failed with
 * a period_locked detail at `field`, before anything changed; null when `date` is open.
 */
export async function lockedOutcome(tx: Tx, date: string, field: string): Promise<Outcome | null> {
  try {
    await tx.assertOpen(date);
    return null;
  } catch (e) {
    if (!isAppError(e) || e.code !== 'period_locked') throw e;
    return { status: 'failed', details: e.details.map((d) => ({ ...d, field })), paymentId: null };
  }
}

/** payment.refunded: a full refund of an event payment reverses it and reopens the invoice. */
export async function processPaymentRefunded(tx: Tx, payload: Record<string, unknown>): Promise<Outcome> {
  const stored = (issue: string, message: string, field = '/payload/external_payment_id'): Outcome => ({ status: 'stored', details: [{ field, issue, message }], paymentId: null });
  if (!validPaymentRefunded(payload)) return { status: 'stored', details: payloadDetails(validPaymentRefunded.errors), paymentId: null };
  const p = payload as { external_payment_id: string; amount_cents?: number };
  // Locked: concurrent refunds of one payment queue here, and each sees what the previous one did.
  const payment = await lockPaymentByExternalId(tx, p.external_payment_id);
  if (!payment) return stored('payment_not_found', `No payment has external_payment_id ${p.external_payment_id}.`);
  if (!payment.eventId) return stored('not_from_event', 'Only payments that came from an event are refunded by events.');
  // A second refund event of a refunded payment changes nothing: stored, saying why. (A repeated
  // delivery of the same event never gets here: it is answered as a duplicate.)
  if (payment.status === 'refunded') {
    return { ...stored('already_refunded', `Payment ${payment.id} is already refunded.`), paymentId: payment.id };
  }
  if (p.amount_cents !== undefined && p.amount_cents !== payment.amountCents) {
    return stored('partial_refund_not_supported', `Only full refunds (${payment.amountCents} cents) are processed.`, '/payload/amount_cents');
  }
  // The refund's reversal is dated today: into a locked period it is not posted, and the event fails.
  const locked = await lockedOutcome(tx, todayUtc(), '/payload');
  if (locked) return { ...locked, paymentId: payment.id };
  await refundPayment(tx, payment);
  return { status: 'processed', details: [], paymentId: payment.id };
}

/** How POST /events applies an event of an active type; other types are stored. */
async function applyApiEvent(tx: Tx, id: string, input: EventInput): Promise<Outcome> {
  if (classifyEvent(input.eventType) !== 'active') return { status: 'stored', details: [], paymentId: null };
  return input.eventType === 'payment.received' ? processPaymentReceived(tx, id, input.payload) : processPaymentRefunded(tx, input.payload);
}

/**
 * Stores an inbound event and applies it in the same transaction: by POST /events' rules, or by
 * `apply` (a payment processor's mapping onto the same flows).
 */
export async function storeEvent(
  tx: Tx,
  input: EventInput,
  hash: string,
  apply: (tx: Tx, eventId: string, input: EventInput) => Promise<Outcome> = applyApiEvent,
): Promise<InboundEvent> {
  const id = randomUUID();
  const outcome = await apply(tx, id, input);
  const row: InboundEvent = {
    id,
    ...tx.scope,
    externalEventId: input.externalEventId,
    idempotencyKey: input.idempotencyKey,
    eventType: input.eventType,
    payload: input.payload,
    payloadHash: hash,
    ...outcome,
    source: input.source ?? 'api',
    sourceId: input.sourceId ?? null,
    createdAt: new Date(),
  };
  await tx.em.flush(); // payments first: the event row points at its payment
  await insertInboundEvent(tx, row);
  return row;
}
