import { Agent, request } from 'undici';
import type { Environment } from '@acct/contracts';
import type { AttemptResult } from '../queries/workers';
import { sign, standardSignatures } from '../domain/secrets';
import { type Resolver, checkUrl, guardedLookupWith } from './ssrf';

const RESPONSE_KEPT = 1024;
const RESPONSE_DRAINED = 64 * 1024;

/**
 * Sends deliveries over keep-alive pools per origin (undici), never following a redirect. In every
 * environment the URL is checked again before each send, and the connection's DNS lookup refuses
 * non-public addresses (the address connected to is the one checked, so a name that rebinds after
 * the check is refused), unless `allowPrivate` (WEBHOOK_ALLOW_PRIVATE_URLS) lifts the address rule.
 * `resolve` (tests) replaces the system DNS for both the check before a send and the connection.
 */
export class Sender {
  private readonly agent: Agent;

  constructor(private readonly o: { timeoutMs: number; allowPrivate: boolean; resolve?: Resolver }) {
    // No cap per origin: the dispatcher limits sends per endpoint, and endpoints may share a host.
    this.agent = new Agent({
      keepAliveTimeout: 30_000,
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
      connect: { timeout: o.timeoutMs, ...(o.allowPrivate ? {} : { lookup: guardedLookupWith(o.resolve) }) },
    });
  }

  /**
   * One attempt. `previousSecret`: while a rotation overlaps, webhook-signature carries a second
   * `v1,` entry under it (after the new one); Service-Signature uses the current secret alone.
   */
  async send(d: { url: string; environment: Environment; body: string; deliveryId: string; secret: string; previousSecret?: string }): Promise<AttemptResult> {
    const attemptedAt = new Date();
    const started = performance.now();
    const done = (r: Omit<AttemptResult, 'attemptedAt' | 'durationMs'>): AttemptResult => ({ attemptedAt, durationMs: Math.round(performance.now() - started), ...r });
    // Node looks up no IP literal at connect time: this check is what refuses those.
    const checked = await checkUrl(d.url, { environment: d.environment, allowPrivate: this.o.allowPrivate, resolve: this.o.resolve });
    if (!checked.ok) return done({ statusCode: null, error: `refused: URL ${checked.problem}`, responseBody: null });
    const timestamp = Math.floor(Date.now() / 1000);
    try {
      const res = await request(checked.href, {
        method: 'POST',
        dispatcher: this.agent,
        body: d.body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'accounting-api-webhooks/1',
          'service-signature': sign(d.secret, timestamp, d.body),
          'service-timestamp': String(timestamp),
          'service-event-id': d.deliveryId,
          // Standard Webhooks beside SPEC.md's headers (API-DECISIONS §11): the id is signed too.
          'webhook-id': d.deliveryId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': standardSignatures(d.previousSecret === undefined ? [d.secret] : [d.secret, d.previousSecret], d.deliveryId, timestamp, d.body),
        },
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
      let kept = Buffer.alloc(0);
      let seen = 0;
      try {
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          if (kept.length < RESPONSE_KEPT) kept = Buffer.concat([kept, chunk.subarray(0, RESPONSE_KEPT - kept.length)]);
          seen += chunk.length;
          if (seen > RESPONSE_DRAINED) break;
        }
      } catch {
        // A body cut short still leaves its status.
      }
      if (seen > RESPONSE_DRAINED) res.body.destroy();
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const redirect = res.statusCode >= 300 && res.statusCode < 400;
      return done({
        statusCode: res.statusCode,
        error: ok ? null : redirect ? `redirect to ${String(res.headers.location ?? '?')} not followed` : `HTTP ${res.statusCode}`,
        responseBody: kept.length ? kept.toString('utf8') : null,
      });
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
      const timeout = e.name === 'TimeoutError' || e.name === 'AbortError' || /timeout/i.test(e.code ?? '');
      const message = timeout ? `timeout after ${this.o.timeoutMs} ms` : `${e.code ?? e.cause?.code ?? e.name}: ${e.cause?.message ?? e.message}`;
      return done({ statusCode: null, error: message.slice(0, 500), responseBody: null });
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
