import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { newSecret, sign, standardSignature, standardSignatures } from './secrets';
import { RETRY_JITTER, parseSchedule, retryDelay } from './schedule';

describe('secrets', () => {
  it('makes whsec_ secrets of 32 random bytes, base64', () => {
    const s = newSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32);
    expect(newSecret()).not.toBe(s);
  });

  it('signs timestamp.body with HMAC-SHA-256 in hex (Service-Signature)', () => {
    expect(sign('whsec_x', 1700000000, '{"a":1}')).toBe(createHmac('sha256', 'whsec_x').update('1700000000.{"a":1}').digest('hex'));
  });
});

describe('Standard Webhooks signature, checked by the standardwebhooks package', () => {
  const body = JSON.stringify({ id: 'evt', type: 'invoice.posted', data: { total_cents: 1 } });
  const id = '7f1c2b8e-2d7a-4c39-9a51-0c6f4e3b9a10';
  const now = Math.floor(Date.now() / 1000);
  const headers = (secret: string, ts = now, b = body) => ({ 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': standardSignature(secret, id, ts, b) });

  it('verifies with the endpoint secret as the app stores it', () => {
    const secret = newSecret();
    expect(standardSignature(secret, id, now, body)).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers(secret))).toEqual(JSON.parse(body));
  });

  it('verifies a secret made before base64 was the rule (base64url)', () => {
    const old = 'whsec_' + Buffer.from('0123456789abcdef0123456789abcdef-_-_').toString('base64url');
    const asStandard = 'whsec_' + Buffer.from(old.slice(6), 'base64url').toString('base64');
    expect(new Webhook(asStandard).verify(body, headers(old))).toEqual(JSON.parse(body));
  });

  it('carries one v1 entry per signing secret during a rotation: each secret verifies, a third does not', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const both = { ...headers(current), 'webhook-signature': standardSignatures([current, previous], id, now, body) };
    expect(both['webhook-signature'].split(' ')).toEqual([standardSignature(current, id, now, body), standardSignature(previous, id, now, body)]);
    expect(new Webhook(current).verify(body, both)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, both)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, both)).toThrow();
    expect(standardSignatures([current], id, now, body)).toBe(standardSignature(current, id, now, body));
  });

  it('fails for another secret, another id, a changed body or an old timestamp', () => {
    const secret = newSecret();
    expect(() => new Webhook(newSecret()).verify(body, headers(secret))).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers(secret), 'webhook-id': 'other' })).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('1', '2'), headers(secret))).toThrow();
    expect(() => new Webhook(secret).verify(body, headers(secret, now - 3600))).toThrow();
  });
});

describe('retry schedule', () => {
  it('parses durations and ends after the last delay', () => {
    const s = parseSchedule('1s,2s,3s');
    expect(s).toEqual([1000, 2000, 3000]);
    expect([1, 2, 3, 4].map((n) => retryDelay(s, n, () => 0.5))).toEqual([1000, 2000, 3000, null]);
    expect(parseSchedule('1m,5m,30m,2h,6h,12h,24h,24h').reduce((a, b) => a + b, 0) / 3_600_000).toBeCloseTo(68.6, 1);
    expect(() => parseSchedule('1x')).toThrow();
  });

  it('moves each delay by up to ±10%, so failures together do not retry together', () => {
    const s = parseSchedule('1m');
    expect(retryDelay(s, 1, () => 0)).toBe(60_000 * (1 - RETRY_JITTER));
    expect(retryDelay(s, 1, () => 0.999999)).toBeCloseTo(60_000 * (1 + RETRY_JITTER), -1);
    const spread = new Set(Array.from({ length: 50 }, () => retryDelay(s, 1)));
    expect(spread.size).toBeGreaterThan(10);
    for (const d of spread) expect(Math.abs(d! - 60_000)).toBeLessThanOrEqual(6_000);
  });
});
