import { Optional, type Static, Type } from '@sinclair/typebox';
import { operations } from '../operations';
import { type RouteDef, createStatuses, routesOf } from '../routes';
import {
  DATE_RANGE_TEXT,
  Nullable,
  StringEnum,
  currency,
  date,
  dateTime,
  externalId,
  idParams,
  listEnvelope,
  name,
  obj,
  paginationQuery,
  positiveCents,
  singleEnvelope,
  uuid,
} from '../schemas/common';

const PAYMENT_SOURCES = ['manual', 'processor'] as const;
const PAYMENT_STATUSES = ['posted', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export const receivedAt = Type.String({
  anyOf: [{ format: 'date' }, { format: 'date-time' }],
  description: `YYYY-MM-DD or an RFC 3339 date-time with an offset; its UTC date is the accounting date. Dates and UTC dates ${DATE_RANGE_TEXT}.`,
});
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

export const paymentOperations = operations('receivables', {
  'payments.create': { body: paymentCreateBody, reply: paymentResponse },
  'payments.list': { query: paymentListQuery, reply: paymentListResponse },
  'payments.get': { params: idParams, reply: paymentResponse },
});

const route = routesOf(paymentOperations, { tag: 'Payments', module: 'payments' });
export const paymentRoutes: RouteDef[] = [
  route('payments.list', {
    operationId: 'listPayments',
    method: 'GET',
    path: '/api/v1/payments',
    summary: 'List customer payments, newest first; filter by invoice_id.',
    statuses: { 200: 'A page of payments.' },
  }),
  route('payments.create', {
    operationId: 'createPayment',
    method: 'POST',
    path: '/api/v1/payments',
    summary: 'Record a customer payment against an open invoice; retry-safe on external_payment_id.',
    description:
      'The invoice must be open or partially_paid (409 otherwise) and amount_cents ≤ its open balance (409 with issue exceeds_open_balance). ' +
      'Dr Cash (source manual) or Dr Processor clearing (source processor) / Cr Accounts Receivable, dated the UTC date of received_at. ' +
      'Emits payment.posted and invoice.paid or invoice.partially_paid.',
    statuses: createStatuses('Payment'),
  }),
  route('payments.get', {
    operationId: 'getPayment',
    method: 'GET',
    path: '/api/v1/payments/{id}',
    summary: 'Get one payment.',
    statuses: { 200: 'The payment.' },
  }),
];
