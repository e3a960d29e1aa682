import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Members' passwords: scrypt at OWASP's parameters (N = 2^17, r = 8, p = 1: 128 MiB and about a
 * quarter of a second per hash), a 16-byte random salt, stored as a self-describing string
 * `$scrypt$ln=17,r=8,p=1$<salt>$<hash>` (PHC string format, unpadded base64) so that the
 * parameters can be raised later and old hashes still verify.
 */
export const SCRYPT = { ln: 17, r: 8, p: 1, saltBytes: 16, keyBytes: 32 } as const;
/** Room for N = 2^17 (128 · N · r = 128 MiB) and node's own overhead. */
const MAXMEM = 256 * 1024 * 1024;
/** The largest cost a stored hash may ask for (a row edited by hand must not take the process down). */
const LN_MAX = 20;

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;

function scrypt(password: string, salt: Buffer, keyBytes: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCb(password.normalize('NFC'), salt, keyBytes, options, (err, key) => (err ? reject(err) : resolve(key))));
}

const b64 = (b: Buffer): string => b.toString('base64').replace(/=+$/, '');

/** A new hash of `password`, with a fresh salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SCRYPT.saltBytes);
  const key = await scrypt(password, salt, SCRYPT.keyBytes, { N: 2 ** SCRYPT.ln, r: SCRYPT.r, p: SCRYPT.p, maxmem: MAXMEM });
  return `$scrypt$ln=${SCRYPT.ln},r=${SCRYPT.r},p=${SCRYPT.p}$${b64(salt)}$${b64(key)}`;
}

interface Parsed {
  ln: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{16,})$/;

function parse(stored: string): Parsed | null {
  const m = FORMAT.exec(stored);
  if (!m) return null;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (ln < 1 || ln > LN_MAX || r < 1 || p < 1 || 128 * 2 ** ln * r > MAXMEM / 2) return null;
  return { ln, r, p, salt: Buffer.from(m[4]!, 'base64'), key: Buffer.from(m[5]!, 'base64') };
}

/** Whether `password` matches the stored hash (compared in constant time); false for a hash that does not parse. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  const h = parse(stored);
  if (!h) return false;
  const key = await scrypt(password, h.salt, h.key.length, { N: 2 ** h.ln, r: h.r, p: h.p, maxmem: MAXMEM });
  return key.length === h.key.length && timingSafeEqual(key, h.key);
}

let dummy: Promise<string> | undefined;

/**
 * Verifies against the member's hash, or, when there is no member (an unknown email), against a
 * dummy hash of the same cost and answers false: an unknown email and a wrong password then take
 * the same time, so the time of a sign-in does not tell whether an email has an account.
 */
export async function verifyOrDummy(stored: string | null, password: string): Promise<boolean> {
  if (stored !== null) return verifyPassword(stored, password);
  warmDummyHash();
  await verifyPassword(await dummy!, password);
  return false;
}

/** Makes the dummy hash now (at startup), so that the first unknown email does not pay for two hashes. */
export function warmDummyHash(): void {
  dummy ??= hashPassword(randomBytes(18).toString('base64'));
}
