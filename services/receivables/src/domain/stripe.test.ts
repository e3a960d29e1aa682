import Stripe from 'stripe';
import { STRIPE_TOLERANCE_SECONDS, asStripeEvent, mapStripeEvent, unstorable, verifyStripeSignature, type StripeEvent } from './stripe';

// Signed by the real Stripe library, never by our own signer.
const stripe = new Stripe('sk_test_unused');
const SECRET = 'whsec_test_secret_0123456789abcdef';
const body = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded', data: { object: { id: 'pi_1' } } });
const now = 1_795_000_000;
const sign = (opts: { payload?: string; secret?: string; timestamp?: number; signature?: string } = {}) =>
  stripe.webhooks.generateTestHeaderString({ payload: opts.payload ?? body, secret: opts.secret ?? SECRET, timestamp: opts.timestamp ?? now, signature: opts.signature });

describe('verifyStripeSignature (headers from stripe.webhooks.generateTestHeaderString)', () => {
  const verify = (header: string | null, payload = body, at = now) => verifyStripeSignature(header, Buffer.from(payload), SECRET, at);

  it('accepts a valid signature over the raw bytes, within the tolerance either side', () => {
    expect(verify(sign())).toEqual({ ok: true, timestamp: now });
    expect(verify(sign(), body, now + STRIPE_TOLERANCE_SECONDS).ok).toBe(true);
    expect(verify(sign(), body, now - STRIPE_TOLERANCE_SECONDS).ok).toBe(true);
  });

  it('refuses a tampered body, even one that parses to the same JSON', () => {
    expect(verify(sign(), body.replace('pi_1', 'pi_2'))).toMatchObject({ ok: false, issue: 'no_match' });
    expect(verify(sign(), ` ${body}`)).toMatchObject({ ok: false, issue: 'no_match' });
  });

  it('refuses a signature made with another secret', () => {
    expect(verify(sign({ secret: 'whsec_another_secret_000000' }))).toMatchObject({ ok: false, issue: 'no_match' });
  });

  it('refuses an old (or future) timestamp, even correctly signed', () => {
    expect(verify(sign({ timestamp: now - STRIPE_TOLERANCE_SECONDS - 1 }))).toMatchObject({ ok: false, issue: 'outside_tolerance' });
    expect(verify(sign({ timestamp: now + STRIPE_TOLERANCE_SECONDS + 1 }))).toMatchObject({ ok: false, issue: 'outside_tolerance' });
  });

  it('accepts when any of several v1 values matches (Stripe rolling a secret), refuses when none does', () => {
    const good = sign().split(',v1=')[1]!;
    const wrong = sign({ secret: 'whsec_old_secret_000000000000' }).split(',v1=')[1]!;
    expect(verify(`t=${now},v1=${wrong},v1=${good}`).ok).toBe(true);
    expect(verify(`t=${now},v1=${good},v1=${wrong},v0=abc`).ok).toBe(true);
    expect(verify(`t=${now},v1=${wrong},v1=${wrong}`)).toMatchObject({ ok: false, issue: 'no_match' });
  });

  it('refuses a missing or malformed header', () => {
    expect(verify(null)).toMatchObject({ ok: false, issue: 'missing' });
    expect(verify('')).toMatchObject({ ok: false, issue: 'missing' });
    const good = sign().split(',v1=')[1]!;
    for (const h of ['garbage', `v1=${good}`, `t=${now}`, `t=abc,v1=${good}`, `t=${now},v1=zz`, `t=${now},v0=${good}`, `t=${now},v1=${good.slice(2)}`]) {
      expect(verify(h)).toMatchObject({ ok: false, issue: 'malformed' });
    }
  });
});

describe('unstorable', () => {
  it('finds NUL and lone surrogates in strings and keys, and nesting past the limit', () => {
    expect(unstorable(JSON.parse(body), 32)).toBeNull();
    expect(unstorable(JSON.parse('{"a":["x\\u0000"]}'), 32)).toMatch(/U\+0000/);
    expect(unstorable(JSON.parse('{"a\\ud800":1}'), 32)).toMatch(/key/);
    expect(unstorable(JSON.parse('{"a":"\\udfff"}'), 32)).toMatch(/lone surrogate/);
    expect(unstorable(JSON.parse('{"a":"\\ud83d\\ude00"}'), 32)).toBeNull();
    const deep = JSON.parse(`${'['.repeat(5000)}${']'.repeat(5000)}`);
    expect(unstorable(deep, 32)).toMatch(/deeper than 32/);
  });
});

describe('asStripeEvent', () => {
  it('takes an object with id, type and data.object, nothing else', () => {
    expect(asStripeEvent(JSON.parse(body))).not.toBeNull();
    for (const v of [null, [], 'evt', { id: 'evt_1', type: 'x' }, { id: 1, type: 'x', data: { object: {} } }, { id: 'e', type: 'x', data: { object: [] } }]) {
      expect(asStripeEvent(v)).toBeNull();
    }
  });
});

describe('mapStripeEvent', () => {
  const ev = (type: string, object: Record<string, unknown>): StripeEvent => ({ id: 'evt_1', type, created: now, data: { object } });
  const INV = '6f1c1d2e-0000-4000-8000-000000000001';

  it('payment_intent.succeeded → a payment of amount_received on the invoice in metadata, dated created', () => {
    const pi = { id: 'pi_1', amount_received: 4200, currency: 'usd', created: 1_772_323_200, metadata: { invoice_id: INV } };
    expect(mapStripeEvent(ev('payment_intent.succeeded', pi))).toEqual({
      kind: 'payment',
      invoice: { id: INV },
      externalPaymentId: 'pi_1',
      amountCents: 4200,
      receivedAt: '2026-03-01T00:00:00.000Z',
    });
    expect(mapStripeEvent(ev('payment_intent.succeeded', { ...pi, metadata: { external_invoice_id: 'inv-9' } }))).toMatchObject({ invoice: { externalId: 'inv-9' } });
    expect(mapStripeEvent(ev('payment_intent.succeeded', { ...pi, metadata: {} }))).toMatchObject({ kind: 'stored', details: [{ issue: 'invoice_metadata_missing' }] });
    expect(mapStripeEvent(ev('payment_intent.succeeded', { ...pi, metadata: { invoice_id: 'nope' } }))).toMatchObject({ kind: 'failed', details: [{ issue: 'invalid_format' }] });
    expect(mapStripeEvent(ev('payment_intent.succeeded', { ...pi, currency: 'eur' }))).toMatchObject({ kind: 'failed', details: [{ issue: 'unsupported_currency' }] });
    expect(mapStripeEvent(ev('payment_intent.succeeded', { ...pi, amount_received: 0 }))).toMatchObject({ kind: 'failed', details: [{ issue: 'invalid_amount' }] });
  });

  it('invoice.paid → a payment when the invoice has metadata and a payment reference, stored otherwise', () => {
    const inv = {
      id: 'in_1',
      amount_paid: 900,
      currency: 'usd',
      created: 1,
      status_transitions: { paid_at: 1_772_323_200 },
      payment_intent: 'pi_7',
      metadata: { external_invoice_id: 'inv-1' },
    };
    expect(mapStripeEvent(ev('invoice.paid', inv))).toEqual({
      kind: 'payment',
      invoice: { externalId: 'inv-1' },
      externalPaymentId: 'pi_7',
      amountCents: 900,
      receivedAt: '2026-03-01T00:00:00.000Z',
    });
    expect(mapStripeEvent(ev('invoice.paid', { ...inv, payment_intent: null, charge: { id: 'ch_3' } }))).toMatchObject({ externalPaymentId: 'ch_3' });
    expect(mapStripeEvent(ev('invoice.paid', { ...inv, payment_intent: null }))).toMatchObject({ kind: 'stored', details: [{ issue: 'payment_reference_missing' }] });
    expect(mapStripeEvent(ev('invoice.paid', { ...inv, metadata: {} }))).toMatchObject({ kind: 'stored', details: [{ issue: 'invoice_metadata_missing' }] });
  });

  it('charge.refunded → a refund of the payment intent when fully refunded, stored with a reason when partial', () => {
    const ch = { id: 'ch_1', payment_intent: 'pi_1', amount: 5000, amount_refunded: 5000, currency: 'usd' };
    expect(mapStripeEvent(ev('charge.refunded', ch))).toEqual({ kind: 'refund', externalPaymentId: 'pi_1', chargeId: 'ch_1', amountCents: 5000 });
    expect(mapStripeEvent(ev('charge.refunded', { ...ch, amount_refunded: 1000 }))).toMatchObject({
      kind: 'stored',
      details: [{ field: '/data/object/amount_refunded', issue: 'partial_refund_not_supported' }],
    });
  });

  it('payout.paid → payout clearing with gross, fee and net metadata (gross − fee = net = amount), stored otherwise', () => {
    const po = { id: 'po_1', amount: 9700, currency: 'usd', arrival_date: 1_772_323_200, metadata: { gross_cents: '10000', fee_cents: '300', net_cents: '9700' } };
    expect(mapStripeEvent(ev('payout.paid', po))).toEqual({ kind: 'payout', externalPayoutId: 'po_1', payoutDate: '2026-03-01', grossCents: 10000, feeCents: 300, netCents: 9700 });
    expect(mapStripeEvent(ev('payout.paid', { ...po, metadata: {} }))).toMatchObject({ kind: 'stored', details: [{ issue: 'payout_metadata_missing' }] });
    expect(mapStripeEvent(ev('payout.paid', { ...po, metadata: { ...po.metadata, fee_cents: '301' } }))).toMatchObject({
      kind: 'stored',
      details: [{ issue: 'amounts_mismatch' }],
    });
    expect(mapStripeEvent(ev('payout.paid', { ...po, amount: 1 }))).toMatchObject({ kind: 'stored', details: [{ issue: 'amounts_mismatch' }] });
    expect(mapStripeEvent(ev('payout.paid', { ...po, metadata: { ...po.metadata, gross_cents: '1e4' } }))).toMatchObject({ kind: 'stored' });
  });

  it('stores any other type as it is', () => {
    expect(mapStripeEvent(ev('customer.created', {}))).toEqual({ kind: 'stored', details: [] });
  });
});
