import { createHmac, randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, newSecret, parseSecretKey, sign } from './secrets';
import { parseSchedule, retryDelay } from './schedule';

describe('secrets', () => {
  const key = randomBytes(32);

  it('encrypts with AES-GCM bound to the endpoint id and decrypts back', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const stored = encryptSecret(key, 'ep-1', secret);
    expect(stored).not.toContain(secret.slice(6));
    expect(decryptSecret(key, 'ep-1', stored)).toBe(secret);
    expect(() => decryptSecret(key, 'ep-2', stored)).toThrow();
    expect(() => decryptSecret(randomBytes(32), 'ep-1', stored)).toThrow();
  });

  it('reads the key as hex, or derives it from a long random string, and refuses a short one', () => {
    expect(parseSecretKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretKey('A'.repeat(48))).toHaveLength(32);
    expect(() => parseSecretKey('short')).toThrow(/at least 32/);
  });

  it('signs timestamp.body with HMAC-SHA-256 in hex', () => {
    expect(sign('whsec_x', 1700000000, '{"a":1}')).toBe(createHmac('sha256', 'whsec_x').update('1700000000.{"a":1}').digest('hex'));
  });
});

describe('retry schedule', () => {
  it('parses durations and ends after the last delay', () => {
    const s = parseSchedule('1s,2s,3s');
    expect(s).toEqual([1000, 2000, 3000]);
    expect([1, 2, 3, 4].map((n) => retryDelay(s, n))).toEqual([1000, 2000, 3000, null]);
    expect(parseSchedule('1m,5m,30m,2h,6h,12h,24h,24h').reduce((a, b) => a + b, 0) / 3_600_000).toBeCloseTo(68.6, 1);
    expect(() => parseSchedule('1x')).toThrow();
  });
});
