import { limits } from '../limits';
import { cents, date, dateTime, externalId, listEnvelope, name, obj, paginationQuery, singleEnvelope, uuid, type JsonSchema } from './common';

/** Shared by invoices, estimates (and bills later). */
export const lineItemInput = obj(
  {
    description: { type: 'string', minLength: 1, maxLength: limits.description_length_max },
    quantity: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 1_000_000_000,
      description: `Greater than 0, at most ${limits.quantity_decimals_max} decimals.`,
    },
    unit_amount_cents: cents,
  },
  ['description', 'quantity', 'unit_amount_cents'],
);
export const lineItemsInput = { type: 'array', items: lineItemInput, minItems: 1, maxItems: limits.line_items_max } as const;
export const lineItem = obj(
  {
    description: { type: 'string' },
    quantity: { type: 'number' },
    unit_amount_cents: { type: 'integer' },
    amount_cents: { type: 'integer', description: 'quantity × unit_amount_cents, rounded half away from zero.' },
  },
  ['description', 'quantity', 'unit_amount_cents', 'amount_cents'],
);
export const currency = { type: 'string', minLength: 1, maxLength: 8, description: 'Only USD is accepted today (default USD).' } as const;
const memo = { type: 'string', maxLength: limits.description_length_max } as const;
const number = { type: 'string', minLength: 1, maxLength: limits.number_length_max } as const;
const action = (type: string) =>
  obj({ type: { type: 'string', enum: [type] }, status: { type: 'string', enum: ['completed'] } }, ['type', 'status']);
const withAction = (nameOf: string, item: JsonSchema, type: string): JsonSchema =>
  obj({ data: item, [nameOf]: item, action: action(type) }, ['data', nameOf, 'action']);

// ---------- invoices ----------
export const INVOICE_STATUSES = ['draft', 'open', 'partially_paid', 'paid'] as const;
export const invoiceCreateBody = obj(
  { external_invoice_id: externalId, customer_id: uuid, invoice_number: number, issue_date: date, due_date: date, line_items: lineItemsInput, currency, memo },
  ['external_invoice_id', 'customer_id', 'invoice_number', 'issue_date', 'due_date', 'line_items'],
);
export const invoice = obj(
  {
    id: uuid,
    external_invoice_id: { type: 'string' },
    customer_id: uuid,
    invoice_number: { type: 'string' },
    issue_date: date,
    due_date: date,
    line_items: { type: 'array', items: lineItem },
    status: { type: 'string', enum: [...INVOICE_STATUSES] },
    total_cents: { type: 'integer' },
    amount_paid_cents: { type: 'integer' },
    balance_due_cents: { type: 'integer', description: 'Open balance: total less payments (0 while draft).' },
    currency: { type: 'string' },
    memo: { type: ['string', 'null'] },
    estimate_id: { type: ['string', 'null'], format: 'uuid' },
    posted_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: dateTime,
  },
  ['id', 'external_invoice_id', 'customer_id', 'invoice_number', 'issue_date', 'due_date', 'line_items', 'status', 'total_cents', 'amount_paid_cents', 'balance_due_cents', 'currency', 'created_at'],
);
export const invoiceListQuery = obj({ ...paginationQuery, status: { type: 'string', enum: [...INVOICE_STATUSES] }, customer_id: uuid });
export const invoiceResponse = singleEnvelope('invoice', invoice);
export const invoicePostResponse = withAction('invoice', invoice, 'posted');
export const invoiceListResponse = listEnvelope('invoices', invoice);

// ---------- payments ----------
export const PAYMENT_SOURCES = ['manual', 'processor'] as const;
export const receivedAt = {
  type: 'string',
  anyOf: [{ format: 'date' }, { format: 'date-time' }],
  description: 'YYYY-MM-DD or an ISO 8601 date-time; its UTC date is the accounting date.',
} as const;
export const paymentCreateBody = obj(
  {
    external_payment_id: externalId,
    invoice_id: uuid,
    amount_cents: { ...cents, minimum: 1 },
    received_at: receivedAt,
    source: { type: 'string', enum: [...PAYMENT_SOURCES], default: 'manual', description: 'manual (Dr Cash) or processor (Dr Processor clearing).' },
    processor: name,
    currency,
  },
  ['external_payment_id', 'invoice_id', 'amount_cents', 'received_at'],
);
export const payment = obj(
  {
    id: uuid,
    external_payment_id: { type: 'string' },
    invoice_id: uuid,
    amount_cents: { type: 'integer' },
    received_date: date,
    source: { type: 'string', enum: [...PAYMENT_SOURCES] },
    processor: { type: ['string', 'null'] },
    currency: { type: 'string' },
    status: { type: 'string', enum: ['posted', 'refunded'] },
    event_id: { type: ['string', 'null'], format: 'uuid' },
    created_at: dateTime,
  },
  ['id', 'external_payment_id', 'invoice_id', 'amount_cents', 'received_date', 'source', 'currency', 'status', 'created_at'],
);
export const paymentListQuery = obj({ ...paginationQuery, invoice_id: uuid });
export const paymentResponse = singleEnvelope('payment', payment);
export const paymentListResponse = listEnvelope('payments', payment);

// ---------- estimates ----------
export const ESTIMATE_STATUSES = ['draft', 'sent', 'accepted', 'declined', 'expired', 'converted'] as const;
export const estimateCreateBody = obj(
  { external_estimate_id: externalId, customer_id: uuid, issue_date: date, expiry_date: date, line_items: lineItemsInput, currency, memo },
  ['external_estimate_id', 'customer_id', 'issue_date', 'line_items'],
);
export const estimate = obj(
  {
    id: uuid,
    external_estimate_id: { type: 'string' },
    customer_id: uuid,
    issue_date: date,
    expiry_date: { type: ['string', 'null'], format: 'date' },
    line_items: { type: 'array', items: lineItem },
    status: { type: 'string', enum: [...ESTIMATE_STATUSES] },
    total_cents: { type: 'integer' },
    currency: { type: 'string' },
    memo: { type: ['string', 'null'] },
    invoice_id: { type: ['string', 'null'], format: 'uuid' },
    created_at: dateTime,
  },
  ['id', 'external_estimate_id', 'customer_id', 'issue_date', 'line_items', 'status', 'total_cents', 'currency', 'created_at'],
);
export const estimateStatusBody = obj({ status: { type: 'string', enum: ['sent', 'accepted', 'declined', 'expired'] } }, ['status']);
export const estimateStatusResponse = singleEnvelope('estimate', obj({ id: uuid, status: { type: 'string', enum: [...ESTIMATE_STATUSES] } }, ['id', 'status']));
export const estimateConvertBody = obj({ external_invoice_id: externalId, invoice_number: number, issue_date: date, due_date: date });
export const estimateConvertResponse = obj(
  { data: obj({ estimate_id: uuid, invoice_id: uuid, invoice_status: { type: 'string' } }, ['estimate_id', 'invoice_id', 'invoice_status']) },
  ['data'],
);
export const estimateListQuery = obj({ ...paginationQuery, status: { type: 'string', enum: [...ESTIMATE_STATUSES] }, customer_id: uuid });
export const estimateResponse = singleEnvelope('estimate', estimate);
export const estimateListResponse = listEnvelope('estimates', estimate);

// ---------- processor payouts ----------
export const payoutCreateBody = obj(
  { external_payout_id: externalId, processor: name, payout_date: date, gross_cents: cents, fee_cents: cents, net_cents: cents, currency },
  ['external_payout_id', 'processor', 'payout_date', 'gross_cents', 'fee_cents', 'net_cents'],
);
export const payout = obj(
  {
    id: uuid,
    external_payout_id: { type: 'string' },
    processor: { type: 'string' },
    payout_date: date,
    gross_cents: { type: 'integer' },
    fee_cents: { type: 'integer' },
    net_cents: { type: 'integer' },
    currency: { type: 'string' },
    status: { type: 'string', enum: ['created'] },
    created_at: dateTime,
  },
  ['id', 'external_payout_id', 'processor', 'payout_date', 'gross_cents', 'fee_cents', 'net_cents', 'currency', 'status', 'created_at'],
);
export const payoutListQuery = obj({ ...paginationQuery, processor: name });
export const payoutResponse = singleEnvelope('processor_payout', payout);
export const payoutListResponse = listEnvelope('processor_payouts', payout);

// ---------- inbound events ----------
export const INBOUND_ACTIVE = ['payment.received', 'payment.refunded'] as const;
export const INBOUND_STORED_ONLY = ['customer.created', 'customer.updated', 'invoice.created', 'invoice.voided', 'credit.applied', 'expense.created'] as const;
export const INBOUND_PLANNED = ['estimate.created', 'vendor.created', 'bill.posted', 'vendor_payment.posted', 'document.uploaded'] as const;
export const eventCreateBody = obj(
  {
    event_type: { type: 'string', minLength: 1, maxLength: 100 },
    external_event_id: externalId,
    payload: { type: 'object', description: `At most ${limits.json_body_bytes_max} bytes with the rest of the body.` },
  },
  ['event_type', 'external_event_id', 'payload'],
);
export const paymentReceivedPayload = obj(
  { external_payment_id: externalId, external_invoice_id: externalId, amount_cents: { ...cents, minimum: 1 }, currency, processor: name, received_at: receivedAt },
  ['external_payment_id', 'external_invoice_id', 'amount_cents', 'received_at'],
  { additionalProperties: true },
);
export const paymentRefundedPayload = obj(
  { external_payment_id: externalId, amount_cents: { ...cents, minimum: 1 }, external_refund_id: externalId, currency },
  ['external_payment_id'],
  { additionalProperties: true },
);
export const event = obj(
  {
    event_id: uuid,
    event_type: { type: 'string' },
    external_event_id: { type: 'string' },
    duplicate: { type: 'boolean' },
    status: { type: 'string', enum: ['processed', 'stored', 'failed'] },
    payment_id: { type: ['string', 'null'], format: 'uuid' },
    details: {
      type: 'array',
      description: 'Why a payment event failed or was only stored: {field, issue, message}.',
      items: obj({ field: { type: 'string' }, issue: { type: 'string' }, message: { type: 'string' } }, ['field', 'issue', 'message']),
    },
    created_at: dateTime,
  },
  ['event_id', 'event_type', 'duplicate', 'status'],
);
export const eventResponse = singleEnvelope('event', event);

export type LineItemInput = { description: string; quantity: number; unit_amount_cents: number };
export type InvoiceCreateBody = {
  external_invoice_id: string; customer_id: string; invoice_number: string; issue_date: string; due_date: string;
  line_items: LineItemInput[]; currency?: string; memo?: string;
};
export type PaymentCreateBody = {
  external_payment_id: string; invoice_id: string; amount_cents: number; received_at: string;
  source?: (typeof PAYMENT_SOURCES)[number]; processor?: string; currency?: string;
};
export type EstimateCreateBody = {
  external_estimate_id: string; customer_id: string; issue_date: string; expiry_date?: string;
  line_items: LineItemInput[]; currency?: string; memo?: string;
};
export type EstimateConvertBody = { external_invoice_id?: string; invoice_number?: string; issue_date?: string; due_date?: string };
export type PayoutCreateBody = {
  external_payout_id: string; processor: string; payout_date: string; gross_cents: number; fee_cents: number; net_cents: number; currency?: string;
};
export type EventCreateBody = { event_type: string; external_event_id: string; payload: Record<string, unknown> };
