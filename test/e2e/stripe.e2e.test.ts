import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { compileBody, limits, schemas } from '@acct/contracts';
import type { E2E, Keys } from './harness';
import { type Api, type Res, createCustomer, createOpenInvoice, expectError, expectSchema, expectStatus, getInvoice, startReceivablesE2E, uid } from './receivables.helpers';

const r = schemas.receivables;
const validProcessor = compileBody(r.paymentProcessorResponse);
const validEvent = compileBody(r.eventResponse);
const validEvents = compileBody(r.eventListResponse);

// Every signature here comes from the real Stripe library, never from our own signer.
const stripe = new Stripe('sk_test_unused');
const secretOf = () => `whsec_${randomBytes(24).toString('base64url')}`;
const unix = (iso: string) => Math.floor(Date.parse(iso) / 1000);

interface Hook {
  path: string;
  secret: string;
}

describe('e2e: Stripe webhook input through the gateway', () => {
  let e2e: E2E;
  let other: Keys;
  let api: Api;
  let otherApi: Api;
  let hook: Hook;
  let otherHook: Hook;

  async function configure(who: Api, secret = secretOf()): Promise<Hook> {
    const put = await who('PUT', '/api/v1/settings/payment-processor', { provider: 'stripe', signing_secret: secret });
    expectStatus(put, 200);
    expectSchema(validProcessor, put.json);
    expect(put.text).not.toContain(secret);
    return { path: put.json.data.webhook_url as string, secret };
  }

  beforeAll(async () => {
    ({ e2e, other, api, otherApi } = await startReceivablesE2E('Stripe org'));
    hook = await configure(api);
    otherHook = await configure(otherApi);
  });
  afterAll(async () => e2e?.stop());

  async function deliver(
    h: Hook,
    payload: string,
    header: string | null = stripe.webhooks.generateTestHeaderString({ payload, secret: h.secret }),
    contentType = 'application/json; charset=utf-8',
  ): Promise<Res> {
    const headers: Record<string, string> = { 'content-type': contentType };
    if (header !== null) headers['stripe-signature'] = header;
    const res = await fetch(`${e2e.base}${h.path}`, { method: 'POST', headers, body: payload });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, text };
  }

  const eventBody = (type: string, object: Record<string, unknown>, id = uid('evt')) =>
    JSON.stringify({ id, object: 'event', api_version: '2024-06-20', created: unix('2026-03-05T12:00:00Z'), livemode: false, type, data: { object } }, null, 2);

  function expectReceived(res: Res, status: string, duplicate = false): any {
    expectStatus(res, 200);
    expectSchema(validEvent, res.json);
    expect(res.json.data).toMatchObject({ source: 'stripe', status, duplicate });
    return res.json.data;
  }

  /** Balances by account code, read through the gateway (read-your-writes). */
  async function balances(who: Api = api): Promise<Record<string, number>> {
    const res = await who('GET', '/api/v1/accounts?limit=100');
    expectStatus(res, 200);
    return Object.fromEntries((res.json.data as Array<{ code: string; balance_cents: number }>).map((a) => [a.code, a.balance_cents]));
  }
  const diff = (after: Record<string, number>, before: Record<string, number>) =>
    Object.fromEntries(Object.keys(after).flatMap((k) => (after[k] !== (before[k] ?? 0) ? [[k, after[k]! - (before[k] ?? 0)]] : [])));

  async function openInvoice(total: number, who: Api = api): Promise<any> {
    return createOpenInvoice(who, await createCustomer(who, 'Stripe customer'), total);
  }

  const paymentIntent = (invoiceMeta: Record<string, string>, amount: number, id = uid('pi')) => ({
    id,
    object: 'payment_intent',
    amount,
    amount_received: amount,
    currency: 'usd',
    created: unix('2026-03-05T23:30:00Z'),
    status: 'succeeded',
    metadata: invoiceMeta,
  });

  describe('settings', () => {
    it('shows the processor without its secret, per connected app; a repeated PUT of the same secret changes nothing', async () => {
      const got = await api('GET', '/api/v1/settings/payment-processor');
      expectStatus(got, 200);
      expectSchema(validProcessor, got.json);
      expect(got.json.data).toMatchObject({ provider: 'stripe', webhook_url: hook.path, verified_at: null });
      expect(got.json.data.webhook_url).toMatch(/^\/hooks\/stripe\/[0-9a-f-]{36}$/);
      expect(got.text).not.toContain(hook.secret);
      expect(hook.path).not.toBe(otherHook.path);
      const again = await api('PUT', '/api/v1/settings/payment-processor', { provider: 'stripe', signing_secret: hook.secret });
      expect(again.json.data).toEqual(got.json.data);
    });

    it('refuses another provider, a secret that is not whsec_… and unknown fields (400)', async () => {
      for (const body of [
        { provider: 'paypal', signing_secret: secretOf() },
        { provider: 'stripe', signing_secret: 'sk_live_nope_nope_nope' },
        { provider: 'stripe' },
        { provider: 'stripe', signing_secret: secretOf(), organization_id: other.organization_id },
        { provider: 'stripe', signing_secret: secretOf(), extra: 1 },
      ]) {
        const res = await api('PUT', '/api/v1/settings/payment-processor', body);
        expect(res.status).toBe(400);
      }
      expect((await api('GET', '/api/v1/settings/payment-processor')).json.data.webhook_url).toBe(hook.path);
    });
  });

  describe('signature', () => {
    const body = eventBody('customer.created', { id: 'cus_1' });

    it('unknown source → 404; bad signatures → 400 signature_invalid; nothing stored, still unverified', async () => {
      const before = await api('GET', '/api/v1/events?source=stripe');
      expectError(await deliver({ path: '/hooks/stripe/00000000-0000-4000-8000-000000000000', secret: hook.secret }, body), 404, 'not_found');
      expectError(await deliver(hook, body, null), 400, 'signature_invalid');
      expectError(await deliver(hook, body, 'nonsense'), 400, 'signature_invalid');
      expectError(await deliver(hook, body, stripe.webhooks.generateTestHeaderString({ payload: body, secret: secretOf() })), 400, 'signature_invalid');
      expectError(
        await deliver(hook, body, stripe.webhooks.generateTestHeaderString({ payload: body, secret: hook.secret, timestamp: Math.floor(Date.now() / 1000) - 600 })),
        400,
        'signature_invalid',
      );
      expectError(await deliver(hook, body.replace('cus_1', 'cus_2'), stripe.webhooks.generateTestHeaderString({ payload: body, secret: hook.secret })), 400, 'signature_invalid');
      // Another source's secret does not sign for this one.
      expectError(await deliver(hook, body, stripe.webhooks.generateTestHeaderString({ payload: body, secret: otherHook.secret })), 400, 'signature_invalid');
      const after = await api('GET', '/api/v1/events?source=stripe');
      expect(after.json.data).toEqual(before.json.data);
      expect((await api('GET', '/api/v1/settings/payment-processor')).json.data.status).toBe('unverified');
    });

    it('junk: too large 413, not JSON 415, a bad source id 400, a signed body that is not a Stripe event 400', async () => {
      const big = 'x'.repeat(limits.webhook_body_bytes_max + 1);
      expectError(await deliver(hook, big), 413, 'validation_failed');
      expectError(await deliver(hook, body, undefined, 'text/plain'), 415, 'validation_failed');
      expectError(await deliver({ ...hook, path: '/hooks/stripe/not-a-uuid' }, body), 400, 'validation_failed');
      expectError(await deliver(hook, '{"hello": "world"}'), 400, 'validation_failed');
      expectError(await deliver(hook, 'not json at all'), 400, 'validation_failed');
      // Signed, but not storable: a NUL, a lone surrogate, nesting past 32 levels (never a 500).
      expectError(await deliver(hook, eventBody('customer.created', { id: 'cus_\u0000' })), 400, 'validation_failed');
      expectError(await deliver(hook, eventBody('customer.created', { ['k\ud800']: 1 })), 400, 'validation_failed');
      const deep = `{"id":"${uid('evt')}","type":"customer.created","data":{"object":{"deep":${'['.repeat(3000)}${']'.repeat(3000)}}}}`;
      expectError(await deliver(hook, deep), 400, 'validation_failed');
    });
  });

  describe('mappings, each with its ledger effect, and replays that change nothing', () => {
    it('payment_intent.succeeded → a payment on the invoice in metadata (Dr 1200 / Cr 1100); verifies the processor', async () => {
      const inv = await openInvoice(10_000);
      const before = await balances();
      const payload = eventBody('payment_intent.succeeded', paymentIntent({ invoice_id: inv.id }, 10_000));
      const ev = expectReceived(await deliver(hook, payload), 'processed');
      expect(ev.event_type).toBe('payment_intent.succeeded');
      expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'paid', amount_paid_cents: 10_000 });
      const pay = await api('GET', `/api/v1/payments/${ev.payment_id}`);
      expect(pay.json.data).toMatchObject({
        invoice_id: inv.id,
        amount_cents: 10_000,
        source: 'processor',
        processor: 'stripe',
        received_date: '2026-03-05',
        event_id: ev.event_id,
      });
      const after = await balances();
      expect(diff(after, before)).toEqual({ '1200': 10_000, '1100': -10_000 });

      const proc = (await api('GET', '/api/v1/settings/payment-processor')).json.data;
      expect(proc.status).toBe('verified');
      expect(Date.parse(proc.verified_at)).toBeGreaterThan(0);

      // Stripe retries with a fresh signature: stored once, answered as the first.
      const dup = expectReceived(await deliver(hook, payload), 'processed', true);
      expect(dup.event_id).toBe(ev.event_id);
      expect(await balances()).toEqual(after);
      expect((await api('GET', `/api/v1/payments?invoice_id=${inv.id}`)).json.data).toHaveLength(1);
    });

    it('invoice.paid → a payment when the Stripe invoice carries metadata and a payment reference; stored otherwise', async () => {
      const inv = await openInvoice(7_500);
      const before = await balances();
      const stripeInvoice = {
        id: uid('in'),
        object: 'invoice',
        amount_paid: 7_500,
        currency: 'usd',
        created: unix('2026-03-01T00:00:00Z'),
        status_transitions: { paid_at: unix('2026-03-06T10:00:00Z') },
        payment_intent: uid('pi'),
        metadata: { external_invoice_id: inv.external_invoice_id },
      };
      const payload = eventBody('invoice.paid', stripeInvoice);
      const ev = expectReceived(await deliver(hook, payload), 'processed');
      expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'paid' });
      const after = await balances();
      expect(diff(after, before)).toEqual({ '1200': 7_500, '1100': -7_500 });
      expect(expectReceived(await deliver(hook, payload), 'processed', true).event_id).toBe(ev.event_id);
      expect(await balances()).toEqual(after);

      // The same payment reported again by payment_intent.succeeded: already recorded, nothing posts.
      const pi = eventBody('payment_intent.succeeded', paymentIntent({ external_invoice_id: inv.external_invoice_id }, 7_500, stripeInvoice.payment_intent));
      expect(expectReceived(await deliver(hook, pi), 'stored').details[0].issue).toBe('already_recorded');

      const noRef = expectReceived(await deliver(hook, eventBody('invoice.paid', { ...stripeInvoice, id: uid('in'), payment_intent: null })), 'stored');
      expect(noRef.details[0]).toMatchObject({ issue: 'payment_reference_missing' });
      expect(await balances()).toEqual(after);
    });

    it('charge.refunded in full → the mirror entry, the invoice reopens; a partial refund is stored with a reason', async () => {
      const inv = await openInvoice(5_000);
      const piId = uid('pi');
      expectReceived(await deliver(hook, eventBody('payment_intent.succeeded', paymentIntent({ invoice_id: inv.id }, 5_000, piId))), 'processed');
      const paid = await balances();
      const charge = { id: uid('ch'), object: 'charge', payment_intent: piId, amount: 5_000, amount_refunded: 1_000, currency: 'usd', refunded: false };

      const partial = expectReceived(await deliver(hook, eventBody('charge.refunded', charge)), 'stored');
      expect(partial.details[0]).toMatchObject({ field: '/data/object/amount_refunded', issue: 'partial_refund_not_supported' });
      expect(await balances()).toEqual(paid);

      const payload = eventBody('charge.refunded', { ...charge, amount_refunded: 5_000, refunded: true });
      const ev = expectReceived(await deliver(hook, payload), 'processed');
      expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'open', amount_paid_cents: 0 });
      expect((await api('GET', `/api/v1/payments/${ev.payment_id}`)).json.data.status).toBe('refunded');
      const refunded = await balances();
      expect(diff(refunded, paid)).toEqual({ '1200': -5_000, '1100': 5_000 });
      expectReceived(await deliver(hook, payload), 'processed', true);
      expect(await balances()).toEqual(refunded);
    });

    it('payout.paid with gross, fee and net metadata → payout clearing (Dr 1010 net, Dr 5200 fee / Cr 1200 gross); without → stored', async () => {
      const before = await balances();
      const payout = {
        id: uid('po'),
        object: 'payout',
        amount: 9_700,
        currency: 'usd',
        arrival_date: unix('2026-03-07T00:00:00Z'),
        metadata: { gross_cents: '10000', fee_cents: '300', net_cents: '9700' },
      };
      const payload = eventBody('payout.paid', payout);
      expectReceived(await deliver(hook, payload), 'processed');
      const list = await api('GET', '/api/v1/processor-payouts?processor=stripe');
      expect(list.json.data.find((p: any) => p.external_payout_id === payout.id)).toMatchObject({
        payout_date: '2026-03-07',
        gross_cents: 10_000,
        fee_cents: 300,
        net_cents: 9_700,
      });
      const after = await balances();
      expect(diff(after, before)).toEqual({ '1010': 9_700, '5200': 300, '1200': -10_000 });
      expectReceived(await deliver(hook, payload), 'processed', true);
      expect(await balances()).toEqual(after);

      const bare = expectReceived(await deliver(hook, eventBody('payout.paid', { ...payout, id: uid('po'), metadata: {} })), 'stored');
      expect(bare.details[0]).toMatchObject({ issue: 'payout_metadata_missing' });
      expect(await balances()).toEqual(after);
    });

    it('any other type is stored as it is', async () => {
      const ev = expectReceived(await deliver(hook, eventBody('customer.subscription.created', { id: uid('sub') })), 'stored');
      expect(ev.details).toEqual([]);
    });
  });

  it('concurrent deliveries of the same event (Stripe retries) post once', async () => {
    const inv = await openInvoice(3_000);
    const before = await balances();
    const payload = eventBody('payment_intent.succeeded', paymentIntent({ invoice_id: inv.id }, 3_000));
    const answers = await Promise.all(Array.from({ length: 8 }, () => deliver(hook, payload)));
    for (const a of answers) expectStatus(a, 200);
    expect(answers.filter((a) => a.json.data.duplicate === false)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.json.data.event_id)).size).toBe(1);
    expect(answers.every((a) => a.json.data.status === 'processed')).toBe(true);
    expect((await api('GET', `/api/v1/payments?invoice_id=${inv.id}`)).json.data).toHaveLength(1);
    expect(diff(await balances(), before)).toEqual({ '1200': 3_000, '1100': -3_000 });
  });

  it("one source never touches another organization's invoices", async () => {
    const inv = await openInvoice(4_000); // the first organization's
    const mine = await balances();
    const theirs = await balances(otherApi);
    const metas: Array<Record<string, string>> = [{ invoice_id: inv.id }, { external_invoice_id: inv.external_invoice_id }];
    for (const meta of metas) {
      const ev = expectReceived(await deliver(otherHook, eventBody('payment_intent.succeeded', paymentIntent(meta, 4_000))), 'failed');
      expect(ev.details[0].issue).toBe('invoice_not_found');
    }
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'open', amount_paid_cents: 0 });
    expect(await balances()).toEqual(mine);
    expect(await balances(otherApi)).toEqual(theirs);
    // The failed events are the other organization's to see, not this one's.
    const seen = await otherApi('GET', '/api/v1/events?source=stripe&status=failed');
    expect(seen.json.data).toHaveLength(2);
    expect((await api('GET', `/api/v1/events/${seen.json.data[0].event_id}`)).status).toBe(404);
  });

  it('GET /events lists both sources with their outcome; filters by source, status and event_type; GET /events/{id}', async () => {
    const sent = await api('POST', '/api/v1/events', { event_type: 'customer.created', external_event_id: uid('evt'), payload: { id: 1 } });
    expectStatus(sent, 201);
    expect(sent.json.data.source).toBe('api');
    const all = await api('GET', '/api/v1/events?limit=100');
    expectStatus(all, 200);
    expectSchema(validEvents, all.json);
    expect(new Set(all.json.data.map((e: any) => e.source))).toEqual(new Set(['api', 'stripe']));
    expect(all.json.data[0].event_id).toBe(sent.json.data.event_id); // newest first
    const stripeOnly = await api('GET', '/api/v1/events?source=stripe&limit=100');
    expect(stripeOnly.json.data.length).toBeGreaterThan(0);
    expect(stripeOnly.json.data.every((e: any) => e.source === 'stripe')).toBe(true);
    const stored = await api('GET', '/api/v1/events?source=stripe&status=stored&event_type=payout.paid');
    expect(stored.json.data.map((e: any) => e.details[0].issue)).toEqual(['payout_metadata_missing']);
    const one = await api('GET', `/api/v1/events/${stored.json.data[0].event_id}`);
    expectStatus(one, 200);
    expectSchema(validEvent, one.json);
    expect(one.json.data).toEqual(stored.json.data[0]);
    expect((await api('GET', '/api/v1/events?source=paypal')).status).toBe(400);
  });

  it('DELETE removes the processor: its webhook URL answers 404 from then on', async () => {
    const h = await configure(otherApi, secretOf()); // a new secret keeps the URL and unverifies it
    expect(h.path).toBe(otherHook.path);
    expect((await otherApi('GET', '/api/v1/settings/payment-processor')).json.data.status).toBe('unverified');
    const del = await otherApi('DELETE', '/api/v1/settings/payment-processor');
    expectStatus(del, 200);
    expect(del.json.data).toEqual({ provider: 'stripe', source_id: h.path.split('/').pop(), deleted: true });
    expectError(await otherApi('GET', '/api/v1/settings/payment-processor'), 404, 'not_found');
    expectError(await otherApi('DELETE', '/api/v1/settings/payment-processor'), 404, 'not_found');
    expectError(await deliver(h, eventBody('customer.created', { id: 'cus_1' })), 404, 'not_found');
  });
});
