import { hash, timingSafeEqual } from 'node:crypto';
import { customAlphabet } from 'nanoid';
import type { Environment } from '@acct/contracts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_RANDOM_LENGTH = 40;
/** svc_test_ or svc_live_ then at least 32 base62 characters (API-DECISIONS §10). */
export const KEY_PATTERN = /^svc_(test|live)_[0-9A-Za-z]{32,128}$/;
const PREFIX_RANDOM_CHARS = 8;

// nanoid draws from crypto randomness without modulo bias.
const randomBase62 = customAlphabet(BASE62, KEY_RANDOM_LENGTH);

export function generateKey(env: Environment): string {
  return `svc_${env}_${randomBase62()}`;
}

/** SHA-256 hex of the key; crypto.hash is the one-shot form (no Hash object per request). */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** The stored lookup prefix: the mode and the first characters of the random part. */
export function keyPrefix(key: string): string {
  const m = /^svc_(test|live)_/.exec(key);
  if (!m) throw new Error('not an API key');
  return key.slice(0, m[0].length + PREFIX_RANDOM_CHARS);
}

export function parseKey(key: string): { environment: Environment } | null {
  const m = KEY_PATTERN.exec(key);
  return m ? { environment: m[1] as Environment } : null;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Constant-time comparison of two SHA-256 hex digests; anything else is never equal. */
export function hashesEqual(a: string, b: string): boolean {
  if (!SHA256_HEX.test(a) || !SHA256_HEX.test(b)) return false;
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
