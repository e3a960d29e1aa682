import { type Static, Type } from '@sinclair/typebox';
import { limits } from '../limits';
import { operations } from '../operations';
import { type RouteSpec, routesOf } from '../routes';
import { Nullable, StringEnum, dateTime, obj, singleEnvelope, uuid } from '../schemas/common';
import { eventResponse } from './events';

/** The payment processor setting (Stripe) and its signed webhook input. */
const PAYMENT_PROCESSORS = ['stripe'] as const;
const PAYMENT_PROCESSOR_STATUSES = ['unverified', 'verified'] as const;
export type PaymentProcessorStatus = (typeof PAYMENT_PROCESSOR_STATUSES)[number];
const signing_secret_length_max = 255;
export const paymentProcessorPutBody = obj({
  provider: StringEnum(PAYMENT_PROCESSORS),
  signing_secret: Type.String({
    pattern: '^whsec_[A-Za-z0-9_+/=-]+$',
    minLength: 14,
    maxLength: signing_secret_length_max,
    description: "The webhook endpoint's signing secret as Stripe shows it (whsec_…). Stored encrypted; never shown again.",
  }),
});
const paymentProcessor = obj({
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
const stripeEvent = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  description: 'A Stripe event object (id evt_…, type, created, data.object), signed in the Stripe-Signature header. ' + `At most ${limits.webhook_body_bytes_max} bytes.`,
  properties: {
    id: { type: 'string' },
    object: { type: 'string', description: 'Always "event".' },
    type: { type: 'string' },
    created: { type: 'integer' },
    livemode: { type: 'boolean' },
    api_version: { type: ['string', 'null'] },
    data: { type: 'object' },
  },
  required: ['id', 'type', 'data'],
  // Stripe adds members over time (request, pending_webhooks, …): they are kept, not refused.
  additionalProperties: true,
});

export const paymentProcessorOperations = operations('receivables', {
  'payment_processor.get': { reply: paymentProcessorResponse },
  'payment_processor.put': { body: paymentProcessorPutBody, reply: paymentProcessorResponse },
  'payment_processor.delete': { reply: paymentProcessorDeleteResponse },
  'processor_hooks.stripe': { public: true, params: processorHookParams, body: processorHookBody, reply: eventResponse },
});

const NOT_CONFIGURED = { '404': 'not_found: no payment processor is configured for the connected app and environment of the key.' };
const route = routesOf(paymentProcessorOperations, { tag: 'Payment processor', module: 'payments' });
export const paymentProcessorRoutes: RouteSpec[] = [
  route('payment_processor.get', {
    operationId: 'getPaymentProcessor',
    method: 'GET',
    path: '/api/v1/settings/payment-processor',
    summary: 'The payment processor of the connected app and environment of the key (never its signing secret).',
    description: '404 not_found when none is configured.',
    moreErrors: NOT_CONFIGURED,
    statuses: { 200: 'The payment processor setting.' },
  }),
  route('payment_processor.put', {
    operationId: 'putPaymentProcessor',
    method: 'PUT',
    path: '/api/v1/settings/payment-processor',
    summary: 'Configure Stripe for the connected app and environment of the key: its webhook signing secret (whsec_…) in, the webhook URL to give Stripe out.',
    description:
      'The secret is stored encrypted at rest (AES-256-GCM) and never shown again. The answer carries webhook_url, /hooks/stripe/{source_id} on the gateway, with an unguessable source id; ' +
      'status is unverified until the first correctly signed event arrives (then verified, with verified_at). Putting another secret keeps the source id (Stripe rolls secrets on the same endpoint) ' +
      'and makes the status unverified again; putting the same secret again changes nothing.',
    statuses: { 200: 'The payment processor setting.' },
  }),
  route('payment_processor.delete', {
    operationId: 'deletePaymentProcessor',
    method: 'DELETE',
    path: '/api/v1/settings/payment-processor',
    summary: 'Remove the payment processor setting: its webhook URL answers 404 from then on. Events already stored stay.',
    moreErrors: NOT_CONFIGURED,
    statuses: { 200: '{provider, source_id, deleted: true}.' },
  }),
  route('processor_hooks.stripe', {
    operationId: 'receiveStripeEvent',
    method: 'POST',
    path: '/hooks/stripe/{source_id}',
    summary: 'Stripe webhook input (no API key): a signed Stripe event becomes a payment, a refund or a payout clearing.',
    description:
      'Verifies Stripe-Signature over the raw bytes before parsing them (HMAC-SHA-256 of "<t>.<body>" under the signing secret, any of several v1 values, 5 minutes tolerance). ' +
      'Unknown source: 404; missing, malformed or wrong signature or a timestamp outside the tolerance: 400 signature_invalid, nothing stored. ' +
      'A valid event is stored once per Stripe event id (a replay answers 200 with duplicate: true and changes nothing) and answered 200 whether or not it could be mapped. ' +
      'Mappings: payment_intent.succeeded → payment on the invoice named by metadata invoice_id or external_invoice_id (amount_received, dated created, Dr Processor clearing); ' +
      'invoice.paid → the same when the Stripe invoice has that metadata and a payment reference (payment_intent or charge); ' +
      'charge.refunded with amount_refunded = amount → the full refund of that payment (mirror entry, the invoice reopens), a partial refund is stored with a reason; ' +
      'payout.paid with metadata gross_cents, fee_cents and net_cents (gross − fee = net = amount) → processor payout clearing, otherwise stored with a reason; any other type: stored. ' +
      'Limited per client address.',
    module: null,
    kind: 'raw',
    signatureHeader: 'stripe-signature',
    rawBody: stripeEvent,
    statuses: { 200: 'Received: the stored event, its outcome, and duplicate: true for a replay.' },
  }),
];
