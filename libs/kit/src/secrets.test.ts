import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, parseSecretKey } from './secrets';

describe('secrets at rest', () => {
  const key = randomBytes(32);

  it('encrypts with AES-GCM bound to the record id and decrypts back', () => {
    const secret = `whsec_${randomBytes(32).toString('base64url')}`;
    const stored = encryptSecret(key, 'ep-1', secret);
    expect(stored).not.toContain(secret.slice(6));
    expect(decryptSecret(key, 'ep-1', stored)).toBe(secret);
    expect(() => decryptSecret(key, 'ep-2', stored)).toThrow();
    expect(() => decryptSecret(randomBytes(32), 'ep-1', stored)).toThrow();
    expect(() => decryptSecret(key, 'ep-1', 'v2.a.b.c')).toThrow(/unknown secret encoding/);
  });

  it('reads the key as hex, or derives it from a long random string, and refuses a short one', () => {
    expect(parseSecretKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretKey('A'.repeat(48))).toHaveLength(32);
    expect(() => parseSecretKey('short')).toThrow(/at least 32/);
  });
});
