import { Optional, Type } from '@sinclair/typebox';
import { limits } from '../limits';
import { recordResource } from '../record-resource';
import { Nullable, StringEnum, dateTime, errorDetail, externalId, name, lookupBy, obj, paginationQuery, positiveCents, uuid } from '../schemas/common';
import { currency } from '../schemas/line-items';
import { receivedAt } from './payments';

/** Inbound events: sent to POST /events or received from a payment processor's signed webhook. */
export const INBOUND_ACTIVE = ['payment.received', 'payment.refunded'] as const;
export const INBOUND_STORED_ONLY = ['customer.created', 'customer.updated', 'invoice.created', 'invoice.voided', 'credit.applied', 'expense.created'] as const;
export const INBOUND_PLANNED = ['estimate.created', 'vendor.created', 'bill.posted', 'vendor_payment.posted', 'document.uploaded'] as const;
const INBOUND_EVENT_STATUSES = ['processed', 'stored', 'failed'] as const;
export type InboundEventStatus = (typeof INBOUND_EVENT_STATUSES)[number];
export const eventCreateBody = obj({
  event_type: Type.String({ minLength: 1, maxLength: 100 }),
  external_event_id: externalId,
  payload: Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    description: `At most ${limits.json_body_bytes_max} bytes and ${limits.json_depth_max} levels of nesting with the rest of the body; no string or key may hold U+0000 or a lone surrogate.`,
  }),
});
export const paymentReceivedPayload = obj(
  {
    external_payment_id: externalId,
    external_invoice_id: externalId,
    amount_cents: positiveCents,
    currency: Optional(currency),
    processor: Optional(name),
    received_at: receivedAt,
  },
  { additionalProperties: true },
);
export const paymentRefundedPayload = obj(
  {
    external_payment_id: externalId,
    amount_cents: Optional(positiveCents),
    external_refund_id: Optional(externalId),
    currency: Optional(currency),
  },
  { additionalProperties: true },
);
/** Where an inbound event came from: POST /events (`api`) or a signed payment-processor webhook (`stripe`). */
const EVENT_SOURCES = ['api', 'stripe'] as const;
export type EventSource = (typeof EVENT_SOURCES)[number];
export const event = obj({
  id: Optional(uuid),
  event_id: uuid,
  event_type: Type.String(),
  external_event_id: Optional(Type.String()),
  source: Optional(StringEnum(EVENT_SOURCES, { description: 'api: sent to POST /events; stripe: a signed Stripe webhook (external_event_id is the Stripe event id).' })),
  duplicate: Type.Boolean(),
  status: StringEnum(INBOUND_EVENT_STATUSES, {
    description:
      'processed: applied to the books; stored: kept without a ledger effect (details say why when it was a mappable type); failed: could not be applied (details say why).',
  }),
  payment_id: Optional(Nullable(uuid)),
  details: Optional(Type.Array(errorDetail, { description: 'Why a payment event failed or was only stored: {field, issue, message}.' })),
  created_at: Optional(dateTime),
});

export const {
  response: eventResponse,
  listResponse: eventListResponse,
  operations: eventOperations,
  routes: eventRoutes,
} = recordResource({
  service: 'receivables',
  resource: 'events',
  one: 'event',
  record: event,
  create: eventCreateBody,
  query: obj({
    ...paginationQuery,
    ...lookupBy('external_event_id'),
    event_type: Optional(Type.String({ minLength: 1, maxLength: 100 })),
    status: Optional(StringEnum(INBOUND_EVENT_STATUSES)),
    source: Optional(StringEnum(EVENT_SOURCES)),
  }),
  http: { name: 'Event', path: '/api/v1/events', tag: 'Events', module: 'webhooks' },
  routes: (events) => [
    events.create({
      summary: 'Send an inbound event (payment.received, payment.refunded, or a stored-only type).',
      description:
        'Active: payment.received (validated, matched to an invoice by external_invoice_id and posted as a payment: status processed; otherwise stored as failed with details) and ' +
        'payment.refunded (a full refund of a payment that came from an event reverses it and reopens the invoice: processed; otherwise stored with details). ' +
        'Stored only: customer.created, customer.updated, invoice.created, invoice.voided, credit.applied, expense.created. ' +
        'Planned types (estimate.created, vendor.created, bill.posted, vendor_payment.posted, document.uploaded) and unknown types: 400 validation_failed. ' +
        "A repeat (same external_event_id, or same Idempotency-Key) answers 200 with duplicate: true and the first event's id and status; the same id with another type or payload is 409.",
      ownIdempotency: true,
      statuses: { 201: 'The event was new.', 200: 'A duplicate: the first event.' },
    }),
    events.list({
      summary: 'List inbound events of both sources (api, stripe), newest first, each with its outcome; filter by event_type, status and source.',
      description: 'status: processed (applied to the books), stored (kept without a ledger effect; details say why for a mappable type) or failed (details say why).',
    }),
    events.get('Get one inbound event with its source and outcome.'),
  ],
});
