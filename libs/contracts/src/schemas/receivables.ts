import { Optional, type Static, Type } from '@sinclair/typebox';
import { limits } from '../limits';
import {
  DATE_RANGE_TEXT,
  Nullable,
  StringEnum,
  cents,
  withAction,
  date,
  dateTime,
  errorDetail,
  externalId,
  listEnvelope,
  name,
  obj,
  paginationQuery,
  singleEnvelope,
  uuid,
} from './common';

/** Shared by invoices, estimates (and bills later). */
export const lineItemInput = obj({
  description: Type.String({ minLength: 1, maxLength: limits.description_length_max }),
  quantity: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1_000_000_000,
    description: `Greater than 0, at most ${limits.quantity_decimals_max} decimals (judged on the number's shortest decimal spelling: 1.2345 is accepted, 1.23456 refused with 400).`,
  }),
  unit_amount_cents: cents,
});
export type LineItemInput = Static<typeof lineItemInput>;
export const lineItemsInput = Type.Array(lineItemInput, { minItems: 1, maxItems: limits.line_items_max });
export const lineItem = obj({
  description: Type.String(),
  quantity: Type.Number(),
  unit_amount_cents: Type.Integer(),
  amount_cents: Type.Integer({ description: 'quantity × unit_amount_cents, rounded half away from zero.' }),
});
/** Only USD today: a service refuses others with a message saying so; the document says it as an enum. */
export const currency = Type.String({ minLength: 1, maxLength: 8, description: 'Only USD is accepted today (default USD).', 'x-openapi': { enum: ['USD'] } });
const memo = Type.String({ maxLength: limits.description_length_max });
const number = Type.String({ minLength: 1, maxLength: limits.number_length_max });

// ---------- invoices ----------
export const INVOICE_STATUSES = ['draft', 'open', 'partially_paid', 'paid'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];
export const invoiceCreateBody = obj({
  external_invoice_id: externalId,
  customer_id: uuid,
  invoice_number: number,
  issue_date: date,
  due_date: date,
  line_items: lineItemsInput,
  currency: Optional(currency),
  memo: Optional(memo),
});
export const invoice = obj({
  id: uuid,
  external_invoice_id: Type.String(),
  customer_id: uuid,
  invoice_number: Type.String(),
  issue_date: date,
  due_date: date,
  line_items: Type.Array(lineItem),
  status: StringEnum(INVOICE_STATUSES),
  total_cents: Type.Integer(),
  amount_paid_cents: Type.Integer(),
  balance_due_cents: Type.Integer({ description: 'Open balance: total less payments (0 while draft).' }),
  currency: Type.String(),
  memo: Optional(Nullable(Type.String())),
  estimate_id: Optional(Nullable(uuid)),
  posted_at: Optional(Nullable(dateTime)),
  created_at: dateTime,
});
export type InvoiceDto = Static<typeof invoice>;
export const invoiceListQuery = obj({ ...paginationQuery, status: Optional(StringEnum(INVOICE_STATUSES)), customer_id: Optional(uuid) });
export const invoiceResponse = singleEnvelope('invoice', invoice);
export const invoicePostResponse = withAction('invoice', invoice, 'posted');
export const invoiceListResponse = listEnvelope('invoices', invoice);

// ---------- payments ----------
export const PAYMENT_SOURCES = ['manual', 'processor'] as const;
export type PaymentSource = (typeof PAYMENT_SOURCES)[number];
export const PAYMENT_STATUSES = ['posted', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export const receivedAt = Type.String({
  anyOf: [{ format: 'date' }, { format: 'date-time' }],
  description: `YYYY-MM-DD or an RFC 3339 date-time with an offset; its UTC date is the accounting date. Dates and UTC dates ${DATE_RANGE_TEXT}.`,
});
const positiveCents = Type.Integer({ minimum: 1, maximum: limits.amount_cents_max });
export const paymentCreateBody = obj({
  external_payment_id: externalId,
  invoice_id: uuid,
  amount_cents: positiveCents,
  received_at: receivedAt,
  source: Optional(StringEnum(PAYMENT_SOURCES, { default: 'manual', description: 'manual (Dr Cash) or processor (Dr Processor clearing).' })),
  processor: Optional(name),
  currency: Optional(currency),
});
export const payment = obj({
  id: uuid,
  external_payment_id: Type.String(),
  invoice_id: uuid,
  amount_cents: Type.Integer(),
  received_date: date,
  source: StringEnum(PAYMENT_SOURCES),
  processor: Optional(Nullable(Type.String())),
  currency: Type.String(),
  status: StringEnum(PAYMENT_STATUSES),
  event_id: Optional(Nullable(uuid)),
  created_at: dateTime,
});
export type PaymentDto = Static<typeof payment>;
export const paymentListQuery = obj({ ...paginationQuery, invoice_id: Optional(uuid) });
export const paymentResponse = singleEnvelope('payment', payment);
export const paymentListResponse = listEnvelope('payments', payment);

// ---------- estimates ----------
export const ESTIMATE_STATUSES = ['draft', 'sent', 'accepted', 'declined', 'expired', 'converted'] as const;
export type EstimateStatus = (typeof ESTIMATE_STATUSES)[number];
export const estimateCreateBody = obj({
  external_estimate_id: externalId,
  customer_id: uuid,
  issue_date: date,
  expiry_date: Optional(date),
  line_items: lineItemsInput,
  currency: Optional(currency),
  memo: Optional(memo),
});
export const estimate = obj({
  id: uuid,
  external_estimate_id: Type.String(),
  customer_id: uuid,
  issue_date: date,
  expiry_date: Optional(Nullable(date)),
  line_items: Type.Array(lineItem),
  status: StringEnum(ESTIMATE_STATUSES),
  total_cents: Type.Integer(),
  currency: Type.String(),
  memo: Optional(Nullable(Type.String())),
  invoice_id: Optional(Nullable(uuid)),
  created_at: dateTime,
});
export type EstimateDto = Static<typeof estimate>;
/**
 * Any estimate status is a well-formed request; whether the move is allowed is the domain's rule
 * (API-DECISIONS §5), and a move it refuses is 409 conflict (§1), converted included (only POST /convert makes it).
 */
export const estimateStatusBody = obj({
  status: StringEnum(ESTIMATE_STATUSES, {
    description:
      'The status to move to. Allowed: draft → sent | accepted; sent → accepted | declined | expired. Other moves, and converted (use POST /estimates/{id}/convert), answer 409 conflict.',
  }),
});
export const estimateStatusResponse = singleEnvelope('estimate', obj({ id: uuid, status: StringEnum(ESTIMATE_STATUSES) }));
export const estimateConvertBody = obj({
  external_invoice_id: Optional(externalId),
  invoice_number: Optional(number),
  issue_date: Optional(date),
  due_date: Optional(date),
});
export type EstimateConvertBody = Static<typeof estimateConvertBody>;
export const estimateConvertResponse = obj({ data: obj({ estimate_id: uuid, invoice_id: uuid, invoice_status: Type.String() }) });
export const estimateListQuery = obj({ ...paginationQuery, status: Optional(StringEnum(ESTIMATE_STATUSES)), customer_id: Optional(uuid) });
export const estimateResponse = singleEnvelope('estimate', estimate);
export const estimateListResponse = listEnvelope('estimates', estimate);

// ---------- processor payouts ----------
export const PAYOUT_STATUSES = ['created'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];
export const payoutCreateBody = obj({
  external_payout_id: externalId,
  processor: name,
  payout_date: date,
  gross_cents: cents,
  fee_cents: cents,
  net_cents: cents,
  currency: Optional(currency),
});
export const payout = obj({
  id: uuid,
  external_payout_id: Type.String(),
  processor: Type.String(),
  payout_date: date,
  gross_cents: Type.Integer(),
  fee_cents: Type.Integer(),
  net_cents: Type.Integer(),
  currency: Type.String(),
  status: StringEnum(PAYOUT_STATUSES),
  created_at: dateTime,
});
export type PayoutDto = Static<typeof payout>;
export const payoutListQuery = obj({ ...paginationQuery, processor: Optional(name) });
export const payoutResponse = singleEnvelope('processor_payout', payout);
export const payoutListResponse = listEnvelope('processor_payouts', payout);

// ---------- inbound events ----------
export const INBOUND_ACTIVE = ['payment.received', 'payment.refunded'] as const;
export const INBOUND_STORED_ONLY = ['customer.created', 'customer.updated', 'invoice.created', 'invoice.voided', 'credit.applied', 'expense.created'] as const;
export const INBOUND_PLANNED = ['estimate.created', 'vendor.created', 'bill.posted', 'vendor_payment.posted', 'document.uploaded'] as const;
export const INBOUND_EVENT_STATUSES = ['processed', 'stored', 'failed'] as const;
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
export const EVENT_SOURCES = ['api', 'stripe'] as const;
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
export const eventResponse = singleEnvelope('event', event);
export const eventListQuery = obj({
  ...paginationQuery,
  event_type: Optional(Type.String({ minLength: 1, maxLength: 100 })),
  status: Optional(StringEnum(INBOUND_EVENT_STATUSES)),
  source: Optional(StringEnum(EVENT_SOURCES)),
});
export const eventListResponse = listEnvelope('events', event);

// ---------- payment processor (Stripe webhook input) ----------
export const PAYMENT_PROCESSORS = ['stripe'] as const;
export const PAYMENT_PROCESSOR_STATUSES = ['unverified', 'verified'] as const;
export type PaymentProcessorStatus = (typeof PAYMENT_PROCESSOR_STATUSES)[number];
export const signing_secret_length_max = 255;
export const paymentProcessorPutBody = obj({
  provider: StringEnum(PAYMENT_PROCESSORS),
  signing_secret: Type.String({
    pattern: '^whsec_[A-Za-z0-9_+/=-]+$',
    minLength: 14,
    maxLength: signing_secret_length_max,
    description: "The webhook endpoint's signing secret as Stripe shows it (whsec_…). Stored encrypted; never shown again.",
  }),
});
export const paymentProcessor = obj({
  provider: StringEnum(PAYMENT_PROCESSORS),
  source_id: uuid,
  webhook_url: Type.String({ description: 'The path (on the gateway) to give Stripe as the webhook endpoint URL: /hooks/stripe/{source_id}.' }),
  status: StringEnum(PAYMENT_PROCESSOR_STATUSES, { description: 'unverified until the first correctly signed event arrives.' }),
  verified_at: Nullable(dateTime),
  created_at: dateTime,
  updated_at: dateTime,
});
export const paymentProcessorResponse = singleEnvelope('payment_processor', paymentProcessor);
export const paymentProcessorDeleteResponse = singleEnvelope('payment_processor', obj({ provider: StringEnum(PAYMENT_PROCESSORS), source_id: uuid, deleted: Type.Literal(true) }));
export const processorHookParams = obj({ source_id: uuid });
/** What the gateway forwards of a signed webhook: the request's bytes as they came, and its signature header. */
export const processorHookBody = obj({
  payload_base64: Type.String({ maxLength: Math.ceil(limits.webhook_body_bytes_max / 3) * 4 }),
  signature: Nullable(Type.String({ maxLength: 8192 })),
});
export type ProcessorHookBody = Static<typeof processorHookBody>;
/** A Stripe event as Stripe sends it (documentation: the gateway checks only its size and signature). */
export const stripeEvent = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  description: 'A Stripe event object (id evt_…, type, created, data.object), signed in the Stripe-Signature header. ' + `At most ${limits.webhook_body_bytes_max} bytes.`,
  properties: { id: { type: 'string' }, type: { type: 'string' }, created: { type: 'integer' }, data: { type: 'object' } },
  required: ['id', 'type', 'data'],
});
