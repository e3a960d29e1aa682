import { createHash, randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import {
  AppError,
  canonicalJson,
  type ErrorDetail,
  INBOUND_ACTIVE,
  INBOUND_PLANNED,
  INBOUND_STORED_ONLY,
  type RpcRequestOf,
  compileBody,
  isAppError,
  schemas,
  single,
  toDetails,
} from '@acct/contracts';
import { type RpcServer, scopeOf } from '@acct/kit';
import { reversalOf, todayUtc } from '@acct/ledger';
import { type Books, type Tx, isUniqueViolation, retryOnceOnUnique } from '@acct/posting';
import { type InboundEvent, InboundEventSchema, InvoiceSchema, PaymentSchema, eventDto, invoiceDto, paymentDto } from '../entities';
import { statusForPaid } from '../domain/invoices';
import { paymentPosting } from '../domain/postings';
import { recordPayment } from './payments.handler';

const validPaymentReceived = compileBody(schemas.receivables.paymentReceivedPayload);
const validPaymentRefunded = compileBody(schemas.receivables.paymentRefundedPayload);

type Outcome = Pick<InboundEvent, 'status' | 'details' | 'paymentId'>;

function hashOf(type: string, payload: unknown): string {
  return createHash('sha256').update(canonicalJson([type, payload])).digest('hex');
}

/** Supported, stored-only, planned (400) or unknown (400): SPEC.md §6. */
function classify(type: string): 'active' | 'stored' {
  if ((INBOUND_ACTIVE as readonly string[]).includes(type)) return 'active';
  if ((INBOUND_STORED_ONLY as readonly string[]).includes(type)) return 'stored';
  const planned = (INBOUND_PLANNED as readonly string[]).includes(type);
  throw AppError.validation(
    planned ? `Event type ${type} is planned and not accepted today.` : `Event type ${type} is not supported.`,
    [{ field: '/event_type', issue: planned ? 'planned_event_type' : 'unsupported_event_type', message: `Supported: ${[...INBOUND_ACTIVE, ...INBOUND_STORED_ONLY].join(', ')}.` }],
  );
}

const payloadDetails = (errors: Parameters<typeof toDetails>[0]): ErrorDetail[] =>
  toDetails(errors).map((d) => ({ ...d, field: `/payload${d.field === '/' ? '' : d.field}` }));

/** payment.received: validated, matched by external_invoice_id, posted as a payment; else failed. */
async function processPaymentReceived(tx: Tx, eventId: string, payload: Record<string, unknown>): Promise<Outcome> {
  if (!validPaymentReceived(payload)) return { status: 'failed', details: payloadDetails(validPaymentReceived.errors), paymentId: null };
  const p = payload as { external_payment_id: string; external_invoice_id: string; amount_cents: number; currency?: string; processor?: string; received_at: string };
  if (p.currency !== undefined && p.currency !== 'USD') {
    return { status: 'failed', details: [{ field: '/payload/currency', issue: 'unsupported_currency', message: 'Only USD is accepted today.' }], paymentId: null };
  }
  const inv = await tx.em.findOne(InvoiceSchema, { ...tx.scope, externalInvoiceId: p.external_invoice_id }, { fields: ['id'] });
  if (!inv) {
    return {
      status: 'failed',
      details: [{ field: '/payload/external_invoice_id', issue: 'invoice_not_found', message: `No invoice has external_invoice_id ${p.external_invoice_id}.` }],
      paymentId: null,
    };
  }
  try {
    const { payment } = await recordPayment(tx, {
      externalPaymentId: p.external_payment_id,
      invoiceId: inv.id,
      amountCents: p.amount_cents,
      receivedAt: p.received_at,
      source: 'processor',
      processor: p.processor ?? null,
      currency: 'USD',
      eventId,
    });
    return { status: 'processed', details: [], paymentId: payment.id };
  } catch (e) {
    // recordPayment checks before it writes, so a refusal leaves the transaction clean.
    if (!isAppError(e)) throw e;
    const details = e.details.length ? e.details : [{ field: '/payload', issue: e.code, message: e.message }];
    return { status: 'failed', details: details.map((d) => ({ ...d, field: d.field.startsWith('/payload') ? d.field : `/payload${d.field}` })), paymentId: null };
  }
}

/** payment.refunded: a full refund of an event payment reverses it and reopens the invoice. */
async function processPaymentRefunded(tx: Tx, payload: Record<string, unknown>): Promise<Outcome> {
  const stored = (issue: string, message: string, field = '/payload/external_payment_id'): Outcome => ({ status: 'stored', details: [{ field, issue, message }], paymentId: null });
  if (!validPaymentRefunded(payload)) return { status: 'stored', details: payloadDetails(validPaymentRefunded.errors), paymentId: null };
  const p = payload as { external_payment_id: string; amount_cents?: number };
  // Locked: concurrent refunds of one payment queue here, and each sees what the previous one did.
  const payment = await tx.em.findOne(PaymentSchema, { ...tx.scope, externalPaymentId: p.external_payment_id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!payment) return stored('payment_not_found', `No payment has external_payment_id ${p.external_payment_id}.`);
  if (!payment.eventId) return stored('not_from_event', 'Only payments that came from an event are refunded by events.');
  if (payment.status === 'refunded') return { status: 'processed', details: [], paymentId: payment.id };
  if (p.amount_cents !== undefined && p.amount_cents !== payment.amountCents) {
    return stored('partial_refund_not_supported', `Only full refunds (${payment.amountCents} cents) are processed.`, '/payload/amount_cents');
  }
  const inv = await tx.em.findOneOrFail(InvoiceSchema, { id: payment.invoiceId, ...tx.scope }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  inv.paidCents -= payment.amountCents;
  inv.status = statusForPaid(inv.totalCents, inv.paidCents);
  payment.status = 'refunded';
  const reversal = reversalOf({ id: payment.journalEntryId, sourceType: 'payment', sourceId: payment.id, lines: paymentPosting(payment).lines }, todayUtc(), {
    memo: 'Full refund of a customer payment',
  });
  payment.refundEntryId = await tx.post(reversal, { type: 'payment_refund', payment: paymentDto(payment), invoice: invoiceDto(inv) });
  return { status: 'processed', details: [], paymentId: payment.id };
}

export function registerEventHandlers(server: RpcServer, books: Books): void {
  const { orm } = books;

  /** The first event with this external id or Idempotency-Key: 200 duplicate, or 409 if it differs. */
  async function duplicateOf(req: RpcRequestOf<'events.create'>, hash: string) {
    const scope = scopeOf(req.ctx);
    const or: Record<string, unknown>[] = [{ externalEventId: req.body.external_event_id }];
    if (req.ctx.idempotencyKey) or.push({ idempotencyKey: req.ctx.idempotencyKey });
    const first = await orm.em.fork().findOne(InboundEventSchema, { ...scope, $or: or }, { orderBy: { createdAt: 'asc' } });
    if (!first) return null;
    if (first.eventType !== req.body.event_type || first.payloadHash !== hash) {
      throw AppError.conflict('This external_event_id (or Idempotency-Key) was already used for an event with another type or payload.', [
        { field: first.externalEventId === req.body.external_event_id ? '/external_event_id' : 'Idempotency-Key', issue: 'already_used', message: `Event ${first.id} has it.` },
      ]);
    }
    return { ok: true as const, status: 200 as const, replayed: true, body: single('event', eventDto(first, true)) };
  }

  server.handle('events.create', async (req) => {
    const b = req.body;
    const kind = classify(b.event_type);
    const hash = hashOf(b.event_type, b.payload);
    const dup = await duplicateOf(req, hash);
    if (dup) return dup;
    const store = () =>
      books.transact(req.ctx, async (tx) => {
        const id = randomUUID();
        let outcome: Outcome = { status: 'stored', details: [], paymentId: null };
        if (kind === 'active') {
          outcome = b.event_type === 'payment.received' ? await processPaymentReceived(tx, id, b.payload) : await processPaymentRefunded(tx, b.payload);
        }
        const row: InboundEvent = {
          id,
          ...tx.scope,
          externalEventId: b.external_event_id,
          idempotencyKey: req.ctx.idempotencyKey ?? null,
          eventType: b.event_type,
          payload: b.payload,
          payloadHash: hash,
          ...outcome,
          createdAt: new Date(),
        };
        await tx.em.flush(); // payments first: the event row points at its payment
        await tx.em.insert(InboundEventSchema, row);
        return row;
      });
    try {
      // The payment's external id may race in from another event (another invoice): the second run
      // finds it used and stores this event as failed instead of answering 500.
      const event = await retryOnceOnUnique('payments_external_id', store);
      return { ok: true, status: 201, body: single('event', eventDto(event, false)) };
    } catch (e) {
      // A concurrent send of the same event won the race: answer as its duplicate.
      if (isUniqueViolation(e, 'inbound_events_external_id') || isUniqueViolation(e, 'inbound_events_idempotency_key')) {
        const again = await duplicateOf(req, hash);
        if (again) return again;
      }
      throw e;
    }
  });
}
