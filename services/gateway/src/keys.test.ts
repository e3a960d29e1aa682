import { createHash } from 'node:crypto';
import { KEY_PATTERN, KEY_RANDOM_LENGTH, generateKey, hashKey, hashesEqual, keyPrefix, parseKey } from './keys';

const BASE62 = /^[0-9A-Za-z]+$/;

describe('generateKey', () => {
  it.each(['test', 'live'] as const)('makes a %s key that matches KEY_PATTERN', (env) => {
    const key = generateKey(env);
    expect(key.startsWith(`svc_${env}_`)).toBe(true);
    expect(key).toMatch(KEY_PATTERN);
    const random = key.slice(`svc_${env}_`.length);
    expect(random).toHaveLength(KEY_RANDOM_LENGTH);
    expect(random.length).toBeGreaterThanOrEqual(32);
    expect(random).toMatch(BASE62);
    expect(parseKey(key)).toEqual({ environment: env });
  });

  it('makes 1000 distinct keys using only base62 characters', () => {
    const keys = Array.from({ length: 1000 }, () => generateKey('test'));
    expect(new Set(keys).size).toBe(1000);
    const chars = new Set<string>();
    for (const k of keys) {
      const random = k.slice('svc_test_'.length);
      expect(random).toMatch(BASE62);
      expect(random).toHaveLength(KEY_RANDOM_LENGTH);
      for (const c of random) chars.add(c);
    }
    // 40 000 draws from 62 symbols: every symbol shows up unless the alphabet is broken.
    expect(chars.size).toBe(62);
  });
});

describe('keyPrefix', () => {
  it('is a strict prefix of the key, longer than the mode marker and shorter than the key', () => {
    for (const env of ['test', 'live'] as const) {
      const key = generateKey(env);
      const p = keyPrefix(key);
      expect(key.startsWith(p)).toBe(true);
      expect(p.length).toBeLessThan(key.length);
      expect(p.length).toBeGreaterThan(`svc_${env}_`.length);
      expect(p.startsWith(`svc_${env}_`)).toBe(true);
    }
  });

  it('is the same for the same key and keeps the mode and 8 random characters', () => {
    const key = `svc_live_${'a'.repeat(8)}${'Z'.repeat(32)}`;
    expect(keyPrefix(key)).toBe('svc_live_aaaaaaaa');
    expect(keyPrefix(key)).toBe(keyPrefix(key));
  });

  it('throws on something that is not an API key', () => {
    expect(() => keyPrefix('sk_live_abc')).toThrow('not an API key');
  });
});

describe('hashKey', () => {
  it('is a deterministic SHA-256 hex digest', () => {
    const key = generateKey('test');
    const h = hashKey(key);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(key)).toBe(h);
    expect(h).toBe(createHash('sha256').update(key).digest('hex'));
    expect(h).not.toContain(key.slice(9));
  });

  it('differs for different keys', () => {
    expect(hashKey('svc_test_a')).not.toBe(hashKey('svc_test_b'));
  });
});

describe('hashesEqual', () => {
  const a = hashKey('svc_test_one');
  const b = hashKey('svc_test_two');

  it('is true for equal hashes', () => {
    expect(hashesEqual(a, a)).toBe(true);
    expect(hashesEqual(a, `${a}`.slice(0))).toBe(true);
  });

  it('is false for different hashes of the same length', () => {
    expect(hashesEqual(a, b)).toBe(false);
    const lastFlipped = a.slice(0, -1) + (a.endsWith('0') ? '1' : '0');
    expect(hashesEqual(a, lastFlipped)).toBe(false);
  });

  it('is false, without throwing, for hashes of different lengths', () => {
    expect(() => hashesEqual(a, a.slice(0, 62))).not.toThrow();
    expect(hashesEqual(a, a.slice(0, 62))).toBe(false);
    expect(hashesEqual(a.slice(0, 62), a)).toBe(false);
    expect(hashesEqual(a, `${a}00`)).toBe(false);
    expect(hashesEqual(a, '')).toBe(false);
  });
});

describe('parseKey', () => {
  const random = 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6'; // 32 base62 chars

  it('accepts test and live keys with at least 32 base62 characters', () => {
    expect(parseKey(`svc_test_${random}`)).toEqual({ environment: 'test' });
    expect(parseKey(`svc_live_${random}`)).toEqual({ environment: 'live' });
    expect(parseKey(`svc_live_${random}${random}`)).toEqual({ environment: 'live' });
  });

  it.each([
    ['an unknown mode', `svc_prod_${random}`],
    ['a short key', `svc_test_${random.slice(1)}`],
    ['a dash', `svc_test_${random.slice(1)}-`],
    ['an underscore in the random part', `svc_test_${random}_x`],
    ['no prefix', random],
    ['an upper-case prefix', `SVC_TEST_${random}`],
    ['a bearer prefix', `Bearer svc_test_${random}`],
    ['surrounding whitespace', ` svc_test_${random} `],
    ['an empty string', ''],
    ['over 128 random chars', `svc_test_${'a'.repeat(129)}`],
  ])('rejects %s', (_what, key) => {
    expect(parseKey(key)).toBeNull();
  });
});

describe('hashesEqual refuses anything but SHA-256 hex digests', () => {
  it.each([
    ['zz', 'yy'],
    ['abc', 'abd'],
    ['ab' + 'g'.repeat(62), 'ab' + 'h'.repeat(62)],
  ])('%s vs %s is not equal', (a, b) => {
    expect(hashesEqual(a, b)).toBe(false);
  });
});
