import { createHmac } from 'node:crypto';
import { newSecret, sign } from './secrets';
import { parseSchedule, retryDelay } from './schedule';

describe('secrets', () => {
  it('makes whsec_ secrets of 32 random bytes', () => {
    expect(newSecret()).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newSecret()).not.toBe(newSecret());
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
