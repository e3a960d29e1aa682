import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets kept at rest (webhook endpoint signing secrets, payment-processor signing secrets):
 * AES-256-GCM under a key from the environment, each ciphertext bound to the id of the record that
 * holds it (the AAD), so a value copied to another row does not decrypt.
 */

/** A key setting (WEBHOOK_SECRET_KEY, PROCESSOR_SECRET_KEY): 64 hex digits (the key itself), or at least 32 random characters (the key is their SHA-256). */
export function parseSecretKey(raw: string): Buffer {
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex');
  if (raw.length < 32) throw new Error('must be 64 hex digits or at least 32 random characters');
  return createHash('sha256').update(raw, 'utf8').digest();
}

/** AES-256-GCM under the key, bound to the record id: `v1.<iv>.<tag>.<ciphertext>` (base64url). */
export function encryptSecret(key: Buffer, recordId: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(recordId));
  const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ct].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

export function decryptSecret(key: Buffer, recordId: string, stored: string): string {
  const [version, iv, tag, ct] = stored.split('.');
  if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unknown secret encoding');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(recordId));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}
