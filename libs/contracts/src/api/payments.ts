import { Optional, type Static, Type } from '@sinclair/typebox';
import { recordResource } from '../record-resource';
import { DATE_RANGE_TEXT, Nullable, StringEnum, date, dateTime, externalId, name, obj, positiveCents, recordListQuery, uuid } from '../schemas/common';
import { currency } from '../schemas/line-items';
import { metadataInput, metadataRecord } from '../schemas/metadata';

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
  metadata: Optional(metadataInput),
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
  metadata: metadataRecord,
  created_at: dateTime,
});
export type PaymentDto = Static<typeof payment>;

export const {
  response: paymentResponse,
  listResponse: paymentListResponse,
  operations: paymentOperations,
  routes: paymentRoutes,
} = recordResource({
  service: 'receivables',
  resource: 'payments',
  one: 'payment',
  record: payment,
  create: paymentCreateBody,
  query: recordListQuery('external_payment_id', { invoice_id: Optional(uuid) }),
  http: { name: 'Payment', path: '/api/v1/payments', tag: 'Payments', module: 'payments' },
  routes: (payments) => [
    payments.list('List customer payments, newest first; filter by invoice_id.'),
    payments.create({
      summary: 'Record a customer payment against an open invoice; retry-safe on external_payment_id.',
      description:
        'The invoice must be open or partially_paid (409 otherwise) and amount_cents ≤ its open balance (409 with issue exceeds_open_balance). ' +
        'Dr Cash (source manual) or Dr Processor clearing (source processor) / Cr Accounts Receivable, dated the UTC date of received_at. ' +
        'Emits payment.posted and invoice.paid or invoice.partially_paid.',
    }),
    payments.get(),
  ],
});
