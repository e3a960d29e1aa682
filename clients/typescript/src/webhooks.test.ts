import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { newSecret, sign, standardSignatures } from '../../../services/webhook-dispatcher/src/domain/secrets';
import { WebhookVerificationError, verify, webhooks } from './index';

const body = JSON.stringify({
  id: 'a2f1c0de-0000-4000-8000-000000000001',
  type: 'invoice.paid',
  created_at: '2026-11-26T05:00:00.000Z',
  environment: 'test',
  organization_id: 'o',
  connected_app_id: 'c',
  data: { invoice_id: 'i', amount_cents: 100 },
});
const id = 'a2f1c0de-0000-4000-8000-000000000001';
const now = 1_790_000_000;

/** The headers the dispatcher sends: both schemes, signed by its own functions. */
function dispatcherHeaders(secrets: string[], ts = now, raw = body): Record<string, string> {
  return {
    'Service-Signature': sign(secrets[0]!, ts, raw),
    'Service-Timestamp': String(ts),
    'Service-Event-Id': id,
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': standardSignatures(secrets, id, ts, raw),
  };
}
const only = (h: Record<string, string>, prefix: string) => Object.fromEntries(Object.entries(h).filter(([k]) => k.toLowerCase().startsWith(prefix)));

describe('webhooks.verify', () => {
  const secret = newSecret();

  it("accepts the dispatcher's Standard Webhooks signature and returns the event", () => {
    const event = verify(body, only(dispatcherHeaders([secret]), 'webhook-'), secret, { now });
    expect(event).toMatchObject({ id, type: 'invoice.paid', data: { amount_cents: 100 } });
    expect(verify(Buffer.from(body), new Headers(dispatcherHeaders([secret])), secret, { now }).id).toBe(id);
  });

  it("accepts the dispatcher's Service-Signature alone", () => {
    expect(webhooks.verify(body, only(dispatcherHeaders([secret]), 'service-'), secret, { now }).id).toBe(id);
  });

  it('accepts either secret while a rotation overlaps (several space-separated signatures)', () => {
    const old = newSecret();
    const h = only(dispatcherHeaders([secret, old]), 'webhook-');
    expect(h['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(body, h, secret, { now }).id).toBe(id);
    expect(verify(body, h, old, { now }).id).toBe(id);
    expect(() => verify(body, h, newSecret(), { now })).toThrow(WebhookVerificationError);
  });

  it('agrees with the standardwebhooks package both ways', () => {
    const raw = `whsec_${randomBytes(24).toString('base64')}`;
    const wh = new Webhook(raw);
    const date = new Date(now * 1000);
    const signature = wh.sign(id, date, body);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(now), 'webhook-signature': `v1,bogus ${signature}` };
    expect(verify(body, headers, raw, { now }).id).toBe(id);
    const ours = webhooks.standardSignature(raw, id, now, body);
    expect(ours).toBe(signature);
    // The package checks its own clock: sign with the current time for it.
    const t = Math.floor(Date.now() / 1000);
    expect(wh.verify(body, { 'webhook-id': id, 'webhook-timestamp': String(t), 'webhook-signature': webhooks.standardSignature(raw, id, t, body) })).toMatchObject({ id });
  });

  it('refuses a changed body, a wrong secret, stale or future timestamps and missing headers', () => {
    const h = dispatcherHeaders([secret]);
    const std = only(h, 'webhook-');
    const svc = only(h, 'service-');
    const bad = (fn: () => unknown, msg: RegExp) => expect(fn).toThrow(msg);
    bad(() => verify(body.replace('100', '999'), std, secret, { now }), /no matching/);
    bad(() => verify(body.replace('100', '999'), svc, secret, { now }), /does not match/);
    bad(() => verify(body, std, newSecret(), { now }), /no matching/);
    bad(() => verify(body, svc, newSecret(), { now }), /does not match/);
    bad(() => verify(body, std, secret, { now: now + 301 }), /tolerance/);
    bad(() => verify(body, svc, secret, { now: now - 301 }), /tolerance/);
    expect(verify(body, std, secret, { now: now + 3600, toleranceSeconds: 0 }).id).toBe(id);
    expect(verify(body, std, secret, { now: now + 50, toleranceSeconds: 60 }).id).toBe(id);
    bad(() => verify(body, {}, secret, { now }), /no webhook-signature/);
    bad(() => verify(body, { ...std, 'webhook-id': undefined }, secret, { now }), /webhook-id/);
    bad(() => verify(body, { ...std, 'webhook-timestamp': 'yesterday' }, secret, { now }), /timestamp/);
    bad(() => verify(body, { ...std, 'webhook-signature': 'v2,abc' }, secret, { now }), /no matching/);
    // A signature for another id (a replayed body under a new delivery id) fails.
    bad(() => verify(body, { ...std, 'webhook-id': 'other' }, secret, { now }), /no matching/);
  });

  it('uses the real clock by default', () => {
    const t = Math.floor(Date.now() / 1000);
    expect(verify(body, dispatcherHeaders([secret], t), secret).id).toBe(id);
  });
});
