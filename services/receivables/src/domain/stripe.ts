import { createHmac, timingSafeEqual } from 'node:crypto';
import { type ErrorDetail, UUID, limits } from '@acct/contracts';

/**
 * Stripe webhook inputs (issue #14), without I/O: the Stripe-Signature check over the raw bytes and
 * the mapping of a Stripe event onto the flows POST /events and processor payouts already have.
 */

/** Stripe's default tolerance: a signature older (or newer) than this is refused as a replay. */
export const STRIPE_TOLERANCE_SECONDS = 300;
/** v1 signatures read from one header, at most (Stripe sends one per active secret: two while rolling). */
const SIGNATURES_MAX = 8;

type SignatureCheck = { ok: true; timestamp: number } | { ok: false; issue: 'missing' | 'malformed' | 'no_match' | 'outside_tolerance'; message: string };

/**
 * Stripe-Signature `t=<unix seconds>,v1=<hex>[,v1=<hex>…][,v0=…]`: valid when some v1 is the hex
 * HMAC-SHA-256 under the secret of `<t>.<raw body>` (compared in constant time) and t is within the
 * tolerance of now. Unknown schemes (v0) are ignored, as Stripe's own libraries do.
 */
export function verifyStripeSignature(
  header: string | null | undefined,
  body: Buffer,
  secret: string,
  nowSeconds: number,
  toleranceSeconds: number = STRIPE_TOLERANCE_SECONDS,
): SignatureCheck {
  if (!header) return { ok: false, issue: 'missing', message: 'The Stripe-Signature header is missing.' };
  let timestamp: number | null = null;
  const v1: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value) && v1.length < SIGNATURES_MAX) v1.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === null || v1.length === 0) {
    return { ok: false, issue: 'malformed', message: 'The Stripe-Signature header needs t=<unix seconds> and at least one v1=<hex HMAC-SHA-256>.' };
  }
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
  if (!v1.some((sig) => sig.length === expected.length && timingSafeEqual(sig, expected))) {
    return { ok: false, issue: 'no_match', message: 'No v1 signature matches the body under the signing secret.' };
  }
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) {
    return { ok: false, issue: 'outside_tolerance', message: `The signature timestamp is more than ${toleranceSeconds} seconds from now.` };
  }
  return { ok: true, timestamp };
}

/** The parts of a Stripe event that are read (Stripe sends many more). */
export interface StripeEvent {
  id: string;
  type: string;
  created?: number;
  data: { object: Record<string, unknown> };
}

/** A NUL, or a UTF-16 surrogate without its partner (matched per code unit): Postgres' jsonb refuses both. */
// eslint-disable-next-line no-control-regex -- U+0000 is what this looks for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why a parsed (signed) body cannot be stored as it is, or null: text jsonb refuses, or nesting
 * deeper than depthMax (the event hash recurses). Walked iteratively, so depth alone cannot overflow.
 */
export function unstorable(root: unknown, depthMax: number): string | null {
  const stack: Array<{ v: unknown; depth: number }> = [{ v: root, depth: 0 }];
  while (stack.length) {
    const { v, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) return 'a string holds U+0000 or a lone surrogate';
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > depthMax) return `nested deeper than ${depthMax} levels`;
    for (const [k, child] of Array.isArray(v) ? v.entries() : Object.entries(v)) {
      if (typeof k === 'string' && UNSTORABLE.test(k)) return 'a key holds U+0000 or a lone surrogate';
      stack.push({ v: child, depth: depth + 1 });
    }
  }
  return null;
}

/** A signed body that is not a Stripe event object: null (the caller answers 400). */
export function asStripeEvent(v: unknown): StripeEvent | null {
  if (!isObject(v)) return null;
  if (typeof v.id !== 'string' || v.id.length < 1 || v.id.length > 255) return null;
  if (typeof v.type !== 'string' || v.type.length < 1 || v.type.length > 100) return null;
  if (!isObject(v.data) || !isObject(v.data.object)) return null;
  return v as unknown as StripeEvent;
}

/** What a Stripe event means for the books. */
export type StripeMapping =
  | {
      kind: 'payment';
      /** Our invoice id (metadata invoice_id) or the app's external id (metadata external_invoice_id). */
      invoice: { id: string } | { externalId: string };
      externalPaymentId: string;
      amountCents: number;
      receivedAt: string;
    }
  /** The payment is under its payment intent's id, or (paid by invoice.paid with a charge only) the charge's. */
  | { kind: 'refund'; externalPaymentId: string; chargeId: string | null; amountCents: number }
  | { kind: 'payout'; externalPayoutId: string; payoutDate: string; grossCents: number; feeCents: number; netCents: number }
  /** Kept without a ledger effect: a type we do not map (no details), or a mappable one that lacks what the mapping needs. */
  | { kind: 'stored'; details: ErrorDetail[] }
  /** A mappable event whose content is wrong (e.g. another currency): kept as failed. */
  | { kind: 'failed'; details: ErrorDetail[] };

const OBJ = '/data/object';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const detail = (field: string, issue: string, message: string): ErrorDetail => ({ field, issue, message });
const stored = (field: string, issue: string, message: string): StripeMapping => ({ kind: 'stored', details: [detail(field, issue, message)] });
const failed = (field: string, issue: string, message: string): StripeMapping => ({ kind: 'failed', details: [detail(field, issue, message)] });

/** An id field that may be a string or an expanded object with an id. */
function idOf(v: unknown): string | null {
  if (typeof v === 'string' && v.length > 0 && v.length <= 255) return v;
  if (isObject(v) && typeof v.id === 'string' && v.id.length > 0 && v.id.length <= 255) return v.id;
  return null;
}
const isCents = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= limits.amount_cents_max;
const isSeconds = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0 && (v as number) < 253402300800; // before year 10000

function invoiceRef(metadata: unknown, field: string): { id: string } | { externalId: string } | StripeMapping {
  const m = isObject(metadata) ? metadata : {};
  if (typeof m.invoice_id === 'string' && m.invoice_id !== '') {
    return UUID.test(m.invoice_id) ? { id: m.invoice_id.toLowerCase() } : failed(`${field}/invoice_id`, 'invalid_format', 'metadata.invoice_id must be the uuid of an invoice.');
  }
  if (typeof m.external_invoice_id === 'string' && m.external_invoice_id !== '' && m.external_invoice_id.length <= 255) return { externalId: m.external_invoice_id };
  return stored(field, 'invoice_metadata_missing', 'Set metadata invoice_id (our invoice id) or external_invoice_id (yours) to apply it to an invoice.');
}

const isMapping = (v: object): v is StripeMapping => 'kind' in v;

function usd(currency: unknown, field: string): StripeMapping | null {
  return typeof currency === 'string' && currency.toLowerCase() === 'usd' ? null : failed(field, 'unsupported_currency', 'Only USD is accepted today.');
}

function paymentIntentSucceeded(pi: Record<string, unknown>): StripeMapping {
  const ref = invoiceRef(pi.metadata, `${OBJ}/metadata`);
  if (isMapping(ref)) return ref;
  const id = idOf(pi.id);
  if (!id) return failed(`${OBJ}/id`, 'required', 'The payment intent has no id.');
  const wrongCurrency = usd(pi.currency, `${OBJ}/currency`);
  if (wrongCurrency) return wrongCurrency;
  if (!isCents(pi.amount_received) || pi.amount_received === 0) return failed(`${OBJ}/amount_received`, 'invalid_amount', 'amount_received must be a positive integer of cents.');
  if (!isSeconds(pi.created)) return failed(`${OBJ}/created`, 'invalid_format', 'created must be Unix seconds.');
  return { kind: 'payment', invoice: ref, externalPaymentId: id, amountCents: pi.amount_received, receivedAt: new Date(pi.created * 1000).toISOString() };
}

function invoicePaid(inv: Record<string, unknown>): StripeMapping {
  const ref = invoiceRef(inv.metadata, `${OBJ}/metadata`);
  if (isMapping(ref)) return ref;
  // The payment reference: the payment intent (or, without one, the charge) that paid the invoice,
  // so a payment_intent.succeeded of the same payment finds it already recorded.
  const payment = idOf(inv.payment_intent) ?? idOf(inv.charge);
  if (!payment) return stored(`${OBJ}/payment_intent`, 'payment_reference_missing', 'The invoice names no payment_intent or charge: nothing to record.');
  const wrongCurrency = usd(inv.currency, `${OBJ}/currency`);
  if (wrongCurrency) return wrongCurrency;
  if (!isCents(inv.amount_paid) || inv.amount_paid === 0) return failed(`${OBJ}/amount_paid`, 'invalid_amount', 'amount_paid must be a positive integer of cents.');
  const transitions = isObject(inv.status_transitions) ? inv.status_transitions : {};
  const paidAt = isSeconds(transitions.paid_at) ? transitions.paid_at : inv.created;
  if (!isSeconds(paidAt)) return failed(`${OBJ}/status_transitions/paid_at`, 'invalid_format', 'paid_at (or created) must be Unix seconds.');
  return { kind: 'payment', invoice: ref, externalPaymentId: payment, amountCents: inv.amount_paid, receivedAt: new Date(paidAt * 1000).toISOString() };
}

function chargeRefunded(ch: Record<string, unknown>): StripeMapping {
  // Payments from Stripe are recorded under their payment intent's id (or the charge's, without one).
  const payment = idOf(ch.payment_intent) ?? idOf(ch.id);
  if (!payment) return failed(`${OBJ}/payment_intent`, 'required', 'The charge names no payment_intent and has no id.');
  if (!isCents(ch.amount) || !isCents(ch.amount_refunded)) return failed(`${OBJ}/amount_refunded`, 'invalid_amount', 'amount and amount_refunded must be integers of cents.');
  if (ch.amount_refunded !== ch.amount) {
    return stored(`${OBJ}/amount_refunded`, 'partial_refund_not_supported', `Only full refunds are posted: ${ch.amount_refunded} of ${ch.amount} cents refunded.`);
  }
  const wrongCurrency = usd(ch.currency, `${OBJ}/currency`);
  if (wrongCurrency) return wrongCurrency;
  return { kind: 'refund', externalPaymentId: payment, chargeId: idOf(ch.id), amountCents: ch.amount_refunded };
}

/** Metadata values are strings in Stripe: digits only. */
function centsOf(v: unknown): number | null {
  if (typeof v === 'number') return isCents(v) ? v : null;
  if (typeof v !== 'string' || !/^\d{1,12}$/.test(v)) return null;
  const n = Number(v);
  return isCents(n) ? n : null;
}

function payoutPaid(po: Record<string, unknown>): StripeMapping {
  const field = `${OBJ}/metadata`;
  const m = isObject(po.metadata) ? po.metadata : {};
  const [gross, fee, net] = [centsOf(m.gross_cents), centsOf(m.fee_cents), centsOf(m.net_cents)];
  if (gross === null || fee === null || net === null) {
    return stored(field, 'payout_metadata_missing', 'Payout clearing needs metadata gross_cents, fee_cents and net_cents (integers of cents).');
  }
  if (gross - fee !== net) return stored(field, 'amounts_mismatch', `gross_cents − fee_cents must equal net_cents (${gross} − ${fee} ≠ ${net}).`);
  if (po.amount !== net) return stored(`${OBJ}/amount`, 'amounts_mismatch', `The payout amount (${String(po.amount)}) is not metadata net_cents (${net}).`);
  const id = idOf(po.id);
  if (!id) return failed(`${OBJ}/id`, 'required', 'The payout has no id.');
  const wrongCurrency = usd(po.currency, `${OBJ}/currency`);
  if (wrongCurrency) return wrongCurrency;
  const when = isSeconds(po.arrival_date) ? po.arrival_date : po.created;
  if (!isSeconds(when)) return failed(`${OBJ}/arrival_date`, 'invalid_format', 'arrival_date (or created) must be Unix seconds.');
  return { kind: 'payout', externalPayoutId: id, payoutDate: new Date(when * 1000).toISOString().slice(0, 10), grossCents: gross, feeCents: fee, netCents: net };
}

/** The mapping of issue #14; any other type is stored as it is. */
export function mapStripeEvent(e: StripeEvent): StripeMapping {
  const o = e.data.object;
  switch (e.type) {
    case 'payment_intent.succeeded':
      return paymentIntentSucceeded(o);
    case 'invoice.paid':
      return invoicePaid(o);
    case 'charge.refunded':
      return chargeRefunded(o);
    case 'payout.paid':
      return payoutPaid(o);
    default:
      return { kind: 'stored', details: [] };
  }
}
