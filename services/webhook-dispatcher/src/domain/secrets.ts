import { createHmac, randomBytes } from 'node:crypto';

/** A new endpoint signing secret: whsec_ + 32 random bytes, base64url (kept encrypted with kit's encryptSecret). */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** Service-Signature: hex HMAC-SHA-256 under the secret of `<timestamp>.<raw body>`. */
export function sign(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}
