/**
 * The JetStream side of the contract: one stream per stack (named from NATS_PREFIX) holding the
 * domain events that services publish from their outboxes. Posting events carry a journal entry
 * (reporting consumes them); outbound events are what the webhook dispatcher delivers.
 */
import { Optional, type Static, type TSchema, Type } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import { ENVIRONMENTS, type Environment } from './envelope';
import type { ErrorDetail } from './errors';
import { type ServiceName, adminSubject } from './services';
import { Nullable, StringEnum, date, dateTime, obj, uuid } from './schemas/common';
import { customer } from './api/customers';
import { invoice } from './api/invoices';
import { payment } from './api/payments';
import { payout } from './api/payouts';
import { bill } from './api/bills';
import { vendor } from './api/vendors';
import { vendorPayment } from './api/vendor-payments';
import { compileBody, toDetails } from './validate';

export const OUTBOUND_EVENT_TYPES = ['invoice.posted', 'payment.posted', 'invoice.paid', 'invoice.partially_paid', 'invoice.voided', 'api_key.revoked'] as const;
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number];
/**
 * The outbound types an endpoint created without event_types subscribes to: those active before
 * API-DECISIONS §15 ("endpoints created without event_types keep the old default list"). A type
 * §15 activates is delivered only to endpoints that name it.
 */
export const DEFAULT_OUTBOUND_EVENT_TYPES = [
  'invoice.posted',
  'payment.posted',
  'invoice.paid',
  'invoice.partially_paid',
  'invoice.voided',
] as const satisfies readonly OutboundEventType[];

export function eventsStreamName(prefix: string): string {
  return `${prefix}_events`;
}
export function eventsSubjectFilter(prefix: string): string {
  return `${prefix}.events.>`;
}
export function postingSubject(prefix: string, service: ServiceName): string {
  return `${prefix}.events.posting.${service}`;
}
export function outboundSubject(prefix: string, type: OutboundEventType): string {
  return `${prefix}.events.outbound.${type}`;
}

/**
 * Reference events: facts other services keep a copy of (reporting's customer and vendor
 * projections). Not delivered as webhooks.
 */
export const REFERENCE_EVENT_TYPES = ['customer.created', 'customer.updated', 'vendor.created', 'vendor.updated', 'books_lock.updated'] as const;
export type ReferenceEventType = (typeof REFERENCE_EVENT_TYPES)[number];
export function referenceSubject(prefix: string, type: ReferenceEventType): string {
  return `${prefix}.events.reference.${type}`;
}
/** What a service may emit beside its postings. */
export type EmittedEventType = OutboundEventType | ReferenceEventType;
export function isReferenceEventType(type: string): type is ReferenceEventType {
  return (REFERENCE_EVENT_TYPES as readonly string[]).includes(type);
}
/** Durable consumers the services create on the stream. */
export const CONSUMERS = {
  reportingPostings: 'reporting-postings',
  webhookOutbound: 'webhook-dispatcher-outbound',
  payablesBooksLock: 'payables-books-lock',
} as const;
export type ConsumerName = (typeof CONSUMERS)[keyof typeof CONSUMERS];

/** The service that runs each durable consumer (and answers the operator's parked-events commands for it). */
export const CONSUMER_SERVICE: Readonly<Record<ConsumerName, ServiceName>> = Object.freeze({
  'reporting-postings': 'reporting',
  'webhook-dispatcher-outbound': 'webhook-dispatcher',
  'payables-books-lock': 'payables',
});

export function isConsumerName(name: string): name is ConsumerName {
  return Object.hasOwn(CONSUMER_SERVICE, name);
}

/**
 * Where the service running `consumer` answers the operator's parked-events commands
 * (`npm run admin -- events parked ...`): one replica of its queue group answers each request.
 */
export function parkedEventsSubject(prefix: string, consumer: ConsumerName): string {
  return adminSubject(prefix, CONSUMER_SERVICE[consumer], `parked.${consumer}`);
}

/** Why a message was parked: not an event (malformed), an event refused by the consumer's checks, or one whose apply kept failing. */
export const PARK_REASONS = ['malformed', 'refused', 'failed'] as const;
export type ParkReason = (typeof PARK_REASONS)[number];

/** A parked message as the operator's commands show it. */
export interface ParkedEventView {
  /** `<consumer>/<stream seq>`: what show, retry and discard take. */
  id: string;
  consumer: string;
  stream_seq: number;
  subject: string;
  event_id: string | null;
  reason: ParkReason;
  error: string;
  deliveries: number;
  parked_at: string;
  discarded_at: string | null;
  /** show only: the message as received, base64, and as text when it is valid UTF-8. */
  raw_base64?: string | null;
  raw_text?: string | null;
}

/** A request on parkedEventsSubject. */
export type ParkedEventsRequest = { action: 'list'; include_discarded?: boolean; limit?: number } | { action: 'show' | 'retry' | 'discard'; stream_seq: number };
/** Its reply: list → events; show/discard → event; retry → outcome ("applied" or "duplicate") and the event removed. */
export type ParkedEventsReply = { ok: true; events?: ParkedEventView[]; event?: ParkedEventView; outcome?: 'applied' | 'duplicate' } | { ok: false; error: string };

/** Amounts in events are whole cents; totals are not capped by the per-amount input limit. */
const positiveCents = Type.Integer({ minimum: 1 });
const nonNegativeCents = Type.Integer({ minimum: 0 });
const currencyCode = Type.String({ minLength: 1, maxLength: 8 });

export const postingLine = obj({
  account_id: uuid,
  account_code: Type.String({ minLength: 1 }),
  side: StringEnum(['debit', 'credit'] as const),
  amount_cents: positiveCents,
  customer_id: Nullable(uuid),
  invoice_id: Nullable(uuid),
  vendor_id: Nullable(uuid),
  bill_id: Nullable(uuid),
});

/**
 * The source document of a posting as the API shows it after the change, by the service that posts
 * it and what posted it. This is where source types are defined: the union below, the service of a
 * source type (POSTING_SOURCE_SERVICE) and the subjects a posting may arrive on all derive from it.
 */
export const POSTING_SOURCES = {
  // invoices.post, payments.create / payment.received, payment.refunded, payouts.create, invoices.void
  receivables: [
    obj({ type: Type.Literal('invoice'), invoice }),
    obj({ type: Type.Literal('invoice_void'), invoice }),
    obj({ type: Type.Literal('payment'), payment, invoice }),
    obj({ type: Type.Literal('payment_refund'), payment, invoice }),
    obj({ type: Type.Literal('processor_payout'), processor_payout: payout }),
  ],
  // bills.create / bills.post, bills.reverse, vendor_payments.create / .post, vendor_payments.reverse
  payables: [
    obj({ type: Type.Literal('bill'), bill }),
    obj({ type: Type.Literal('bill_reversal'), bill }),
    obj({ type: Type.Literal('vendor_payment'), vendor_payment: vendorPayment, bills: Type.Array(bill, { minItems: 1 }) }),
    obj({ type: Type.Literal('vendor_payment_reversal'), vendor_payment: vendorPayment, bills: Type.Array(bill, { minItems: 1 }) }),
  ],
} as const satisfies Partial<Record<ServiceName, readonly TSchema[]>>;

/** A service that posts journal entries (a key of POSTING_SOURCES). */
export type PostingService = keyof typeof POSTING_SOURCES;
export const POSTING_SERVICES = Object.keys(POSTING_SOURCES) as PostingService[];

/**
 * The posting service that owns the books' lock date (API-DECISIONS §12): its row is the value in
 * force, and it records the changes and emits books_lock.updated. Every other posting service keeps
 * a copy (libs/posting books-lock.ts).
 */
export const BOOKS_LOCK_OWNER = 'receivables' as const satisfies PostingService;
/** A posting service that keeps a copy of the lock date: every posting service but the owner. */
export type BooksLockCopyService = Exclude<PostingService, typeof BOOKS_LOCK_OWNER>;
/** The posting services that keep a copy, derived from POSTING_SOURCES. */
export const BOOKS_LOCK_COPY_SERVICES = POSTING_SERVICES.filter((s): s is BooksLockCopyService => s !== BOOKS_LOCK_OWNER);
/**
 * The durable consumer of books_lock.updated that feeds each copy. A Record over the copies: a new
 * posting service (a key of POSTING_SOURCES) does not compile until it names its consumer here.
 */
export const BOOKS_LOCK_CONSUMERS: Readonly<Record<BooksLockCopyService, ConsumerName>> = Object.freeze({ payables: CONSUMERS.payablesBooksLock });

export const postingSource = Type.Union([...POSTING_SOURCES.receivables, ...POSTING_SOURCES.payables]);
export type PostingSource = Static<typeof postingSource>;
/** What posted an entry (the event's source.type). */
export type PostingSourceType = PostingSource['type'];

/**
 * The entry's source_type for each source type: a reversal (void, refund, reversal) keeps the source
 * type of the entry it reverses. A Record over PostingSourceType: a new source type must be added here.
 */
export const ENTRY_SOURCE_TYPE: Readonly<Record<PostingSourceType, string>> = Object.freeze({
  invoice: 'invoice',
  invoice_void: 'invoice',
  payment: 'payment',
  payment_refund: 'payment',
  processor_payout: 'processor_payout',
  bill: 'bill',
  bill_reversal: 'bill',
  vendor_payment: 'vendor_payment',
  vendor_payment_reversal: 'vendor_payment',
});

/** The one service that posts each source type, derived from POSTING_SOURCES. */
export const POSTING_SOURCE_SERVICE: Readonly<Record<PostingSourceType, PostingService>> = Object.freeze(
  Object.fromEntries(
    (Object.entries(POSTING_SOURCES) as [PostingService, readonly { properties: { type: { const: string } } }[]][]).flatMap(([service, sources]) =>
      sources.map((s) => [s.properties.type.const, service]),
    ),
  ) as Record<PostingSourceType, PostingService>,
);

/**
 * Why `service` may not post an entry of source type `sourceType` (source.type) and entry source
 * type `entrySourceType`, or undefined when it may. Posting services check what they post with it;
 * reporting refuses an event whose subject's service fails it.
 */
export function postingSourceProblem(service: string, sourceType: string, entrySourceType: string): string | undefined {
  if (!Object.hasOwn(POSTING_SOURCE_SERVICE, sourceType)) return `unknown source type ${JSON.stringify(sourceType)}`;
  const owner = POSTING_SOURCE_SERVICE[sourceType as PostingSourceType];
  if (owner !== service) return `source type ${sourceType} is posted by ${owner}, not by ${service}`;
  const entry = ENTRY_SOURCE_TYPE[sourceType as PostingSourceType];
  if (entry !== entrySourceType) return `an entry of source type ${sourceType} has source_type ${entry}, not ${JSON.stringify(entrySourceType)}`;
  return undefined;
}

/** The posting service whose subject (postingSubject) `subject` is, or undefined. */
export function postingServiceOfSubject(prefix: string, subject: string): PostingService | undefined {
  const head = `${prefix}.events.posting.`;
  if (!subject.startsWith(head)) return undefined;
  const service = subject.slice(head.length);
  return (POSTING_SERVICES as string[]).includes(service) ? (service as PostingService) : undefined;
}

/** "A journal entry was written": everything a ledger projection needs, self-contained. */
export const postingEvent = obj({
  id: uuid,
  type: Type.Literal('journal_entry.posted'),
  organization_id: uuid,
  environment: StringEnum(ENVIRONMENTS),
  occurred_at: dateTime,
  entry: obj({
    id: uuid,
    entry_date: date,
    source_type: Type.String({ minLength: 1 }),
    source_id: uuid,
    memo: Nullable(Type.String()),
    reverses_entry_id: Nullable(uuid),
    lines: Type.Array(postingLine, { minItems: 1 }),
    // Optional: events published before the tamper-evident journal (API-DECISIONS §12) have none.
    hash: Optional(Type.String({ pattern: '^[0-9a-f]{64}$', description: 'The entry’s hash in its journal chain (SHA-256, hex).' })),
  }),
  source: postingSource,
});

/**
 * The posting event. Its source is typed loosely by default, as Tx.post takes it today;
 * EventMap['journal_entry.posted'] (= PostingEvent<PostingSource>) is the exact type.
 */
export type PostingEvent<S = Record<string, unknown>> = Omit<Static<typeof postingEvent>, 'source'> & { source: S };

// ---------- outbound (webhook) event data: what tx.emit(type, data) is given ----------
export const invoicePostedData = obj({
  invoice_id: uuid,
  invoice_number: Type.String(),
  customer_id: uuid,
  total_cents: nonNegativeCents,
  currency: currencyCode,
  issue_date: date,
  due_date: date,
});
export const paymentPostedData = obj({ payment_id: uuid, invoice_id: uuid, amount_cents: positiveCents, currency: currencyCode });
export const invoicePaidData = obj({ invoice_id: uuid, amount_paid_cents: nonNegativeCents, total_cents: nonNegativeCents, currency: currencyCode });
export const invoicePartiallyPaidData = obj({
  invoice_id: uuid,
  amount_paid_cents: nonNegativeCents,
  balance_due_cents: positiveCents,
  total_cents: nonNegativeCents,
  currency: currencyCode,
});
/** An invoice became void (a draft, or an open invoice with no payments: its entry reversed on void_date). */
export const invoiceVoidedData = obj({ invoice_id: uuid, total_cents: nonNegativeCents, currency: currencyCode });

/** A key was revoked (API-DECISIONS §13; the gateway emits it, from the dashboard or the admin CLI). */
export const apiKeyRevokedData = obj({ api_key_id: uuid, connected_app_id: uuid, revoked_at: dateTime });

/** The books' lock date as the owner (receivables) recorded it; version grows by one per change. */
export const booksLockUpdatedData = obj({ version: Type.Integer({ minimum: 0 }), lock_date: Nullable(date) });

/** One schema per event type: the posting event itself; for every other type, the event's data. */
export const EVENT_SCHEMAS = {
  'journal_entry.posted': postingEvent,
  'invoice.posted': invoicePostedData,
  'payment.posted': paymentPostedData,
  'invoice.paid': invoicePaidData,
  'invoice.partially_paid': invoicePartiallyPaidData,
  'invoice.voided': invoiceVoidedData,
  'api_key.revoked': apiKeyRevokedData,
  /** Reference events: the customer as the API shows it. */
  'customer.created': customer,
  'customer.updated': customer,
  /** Reference events: the vendor as the API shows it. */
  'vendor.created': vendor,
  'vendor.updated': vendor,
  /** Reference event: a new lock date (API-DECISIONS §12) for the posting services' copies; newer version wins. */
  'books_lock.updated': booksLockUpdatedData,
} as const satisfies Record<'journal_entry.posted' | EmittedEventType, TSchema>;

export type EventType = keyof typeof EVENT_SCHEMAS;
export const EVENT_TYPES = Object.keys(EVENT_SCHEMAS) as EventType[];
export type EventMap = { [K in EventType]: Static<(typeof EVENT_SCHEMAS)[K]> };

/** A reference event as it is in the stream. */
export interface ReferenceEvent<K extends ReferenceEventType = ReferenceEventType> {
  id: string;
  type: K;
  created_at: string;
  organization_id: string;
  environment: Environment;
  data: EventMap[K];
}

/** The body of an outbound webhook delivery, minus the delivery id the dispatcher assigns. */
export interface OutboundEvent<K extends OutboundEventType = OutboundEventType> {
  id: string;
  type: K;
  created_at: string;
  organization_id: string;
  connected_app_id: string;
  environment: Environment;
  data: EventMap[K];
}

const validators = new Map<EventType, ValidateFunction>();
function validatorOf(type: EventType): ValidateFunction {
  let v = validators.get(type);
  if (!v) {
    const schema = (EVENT_SCHEMAS as Record<string, TSchema>)[type];
    if (!schema) throw new Error(`unknown event type ${String(type)}`);
    v = compileBody(schema);
    validators.set(type, v);
  }
  return v;
}

/** True when payload is a valid EventMap[type] (the schema of each type is compiled once). */
export function validateEvent<K extends EventType>(type: K, payload: unknown): payload is EventMap[K] {
  return validatorOf(type)(payload);
}

/** Why payload is not a valid EventMap[type], as {field, issue, message}; empty when it is. */
export function eventErrors(type: EventType, payload: unknown): ErrorDetail[] {
  const v = validatorOf(type);
  return v(payload) ? [] : toDetails(v.errors);
}

/** Every outbound event (the webhook dispatcher's consumer filter). */
export function outboundSubjectFilter(prefix: string): string {
  return `${prefix}.events.outbound.>`;
}
