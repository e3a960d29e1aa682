import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/**
 * A new endpoint signing secret: `whsec_` + base64 of 32 random bytes (API-DECISIONS §11: 24 to 64),
 * the form Standard Webhooks verifiers take as they are (kept encrypted with kit's encryptSecret).
 */
export function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** Service-Signature (SPEC.md): hex HMAC-SHA-256 under the whole secret string of `<timestamp>.<raw body>`. */
export function sign(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/**
 * Standard Webhooks (standardwebhooks.com): `v1,` + base64 HMAC-SHA-256 of `<id>.<timestamp>.<raw
 * body>`, keyed by the bytes the part after `whsec_` encodes. Secrets made before base64 was the
 * rule are base64url: Node decodes both alphabets, so they sign the same way.
 */
export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The webhook-signature header: one `v1,` entry per secret that signs, space-separated, the current
 * secret first and, while a rotation overlaps, the one it replaced (API-DECISIONS §11).
 */
export function standardSignatures(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => standardSignature(s, id, timestamp, body)).join(' ');
}
