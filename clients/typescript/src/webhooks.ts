import { createHmac, timingSafeEqual } from 'node:crypto';
import type { webhooks as WebhookOperations } from './schema';

/** Headers as Node, fetch or a framework hand them over. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

export interface VerifyOptions {
  /** Oldest (and furthest in the future) a timestamp may be, in seconds (default 300). 0 skips the check. */
  toleranceSeconds?: number;
  /** The clock, in Unix seconds (default now); for tests. */
  now?: number;
}

/** A delivery whose signature, timestamp or headers do not check out: answer 400 and ignore it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Every event type the API delivers to webhook endpoints. */
export type WebhookEventType = keyof WebhookOperations;

/**
 * A delivery body (SPEC.md), typed from the document's webhooks: a union discriminated by `type`,
 * so `switch (event.type)` narrows `data` to that event's payload. Its `id` is the delivery id, the
 * same on every retry; dedupe on it. `WebhookEvent<'invoice.posted'>` is the one event.
 * An API newer than this SDK may deliver a type it does not list: keep a `default` branch.
 */
export type WebhookEvent<K extends WebhookEventType = WebhookEventType> = {
  [P in K]: WebhookOperations[P]['post']['requestBody']['content']['application/json'];
}[K];

const PREFIX = 'whsec_';

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const rec = headers as Record<string, string | readonly string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : rec[key];
  return Array.isArray(v) ? (v as readonly string[]).join(' ') : (v as string | undefined);
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  // Equal lengths for timingSafeEqual; a length mismatch says nothing about the secret.
  return x.length === y.length && timingSafeEqual(x, y);
}

function checkTimestamp(raw: string | undefined, options: VerifyOptions): number {
  if (raw === undefined || !/^\d{1,12}$/.test(raw.trim())) throw new WebhookVerificationError('missing or malformed timestamp header');
  const ts = Number(raw.trim());
  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (tolerance > 0 && Math.abs(now - ts) > tolerance) throw new WebhookVerificationError('timestamp outside the tolerance');
  return ts;
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA-256 of `<id>.<timestamp>.<body>`, keyed by the bytes after `whsec_`. */
export function standardSignature(secret: string, id: string, timestamp: number, body: string | Buffer): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
}

/** SPEC.md's Service-Signature: hex HMAC-SHA-256 of `<timestamp>.<body>` under the whole secret string. */
export function serviceSignature(secret: string, timestamp: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/**
 * Checks a delivery and returns its parsed body, or throws {@link WebhookVerificationError}. Pass the
 * raw body exactly as received (a Buffer or the string before any JSON parsing). Standard Webhooks
 * headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`, any of its space-separated `v1,`
 * entries) are checked when present, else `Service-Signature` / `Service-Timestamp`. Comparisons are
 * constant-time; the timestamp must lie within `toleranceSeconds` (default 5 minutes) of now.
 */
export function verify(rawBody: string | Buffer | Uint8Array, headers: WebhookHeaders, secret: string, options: VerifyOptions = {}): WebhookEvent {
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const id = header(headers, 'webhook-id');
  const signatures = header(headers, 'webhook-signature');
  if (signatures !== undefined) {
    if (id === undefined) throw new WebhookVerificationError('missing webhook-id header');
    const ts = checkTimestamp(header(headers, 'webhook-timestamp'), options);
    const expected = standardSignature(secret, id, ts, body);
    const ok = signatures
      .split(' ')
      .filter((s) => s.startsWith('v1,'))
      .some((s) => safeEqual(s, expected));
    if (!ok) throw new WebhookVerificationError('no matching webhook-signature');
  } else {
    const signature = header(headers, 'service-signature');
    if (signature === undefined) throw new WebhookVerificationError('no webhook-signature nor service-signature header');
    const ts = checkTimestamp(header(headers, 'service-timestamp'), options);
    if (!safeEqual(signature.trim().toLowerCase(), serviceSignature(secret, ts, body))) throw new WebhookVerificationError('service-signature does not match');
  }
  try {
    return JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('body is not JSON');
  }
}

/** `client.webhooks` and the standalone export: verification needs no API key. */
export const webhooks = { verify, standardSignature, serviceSignature };
