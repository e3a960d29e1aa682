import { AppError, type RouteDef, limits, takesIdempotencyKey } from '@acct/contracts';
import { type Begin, type IdempotencyStore, fingerprint } from '../idempotency';
import type { GatewayMetrics } from '../metrics';
import { forwardsIdempotencyKey } from '../route-kind';
import { renderError } from './errors';
import type { Ctx, Middleware } from './state';

/** What the middleware needs of the Idempotency-Key records: unit tests hand in a fake. */
export type IdempotencyRecords = Pick<IdempotencyStore, 'begin' | 'complete' | 'release'>;

/** The `error` object of an error envelope; undefined for any other body. */
function errorOf(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const { error } = body;
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : undefined;
}

/**
 * Idempotency-Key on POST and PATCH (API-DECISIONS §2). The service that makes the effect answers
 * for the key: the key and the request's fingerprint go with the request, and the service keeps
 * the first answer in its own schema, with the effect (libs/kit rpc-idempotency.ts), and replays it.
 * The gateway's record is a cache of that answer: a repeat it holds is answered here, and a record
 * still in flight (its gateway may have died) or unreadable (the gateway's database down) sends
 * the request on for the service to answer.
 */
export function idempotency(route: RouteDef, { records, metrics }: { records: IdempotencyRecords; metrics: GatewayMetrics }): Middleware {
  return async (ctx, next) => {
    const key = ctx.get('idempotency-key');
    if (!takesIdempotencyKey(route) || !key) {
      await next();
      return;
    }
    if (key.length > limits.idempotency_key_length_max) {
      throw AppError.validation('Idempotency-Key is too long.', [
        { field: 'Idempotency-Key', issue: 'too_long', message: `At most ${limits.idempotency_key_length_max} characters.` },
      ]);
    }
    // Routes with their own dedupe (POST /events, uploads) get the key forwarded instead (API-DECISIONS §9).
    if (forwardsIdempotencyKey(route)) {
      await next();
      return;
    }
    const apiKeyId = ctx.state.principal!.apiKeyId;
    const scope = ctx.state.fingerprintScope;
    const fp = fingerprint(ctx.method, scope ? `${ctx.path} ${scope}` : ctx.path, ctx.state.body);
    ctx.state.idempotencyFingerprint = fp;
    const begin = await records.begin(apiKeyId, key, fp).catch((err: unknown) => {
      ctx.state.log.warn({ err }, 'could not read the Idempotency-Key record; the service answers for the key');
      return undefined;
    });
    if (begin?.kind === 'mismatch') {
      throw AppError.conflict('This Idempotency-Key was already used with a different method, path or body.', [
        { field: 'Idempotency-Key', issue: 'reused_with_different_request', message: 'Use a new key for a different request.' },
      ]);
    }
    if (begin?.kind === 'replay') return replay(ctx, begin, metrics);
    if (begin?.kind !== 'proceed') {
      // In flight or unknown here: the service keeps the key's answer, and answers (a replay, or 409 in_flight).
      await next();
      if (ctx.state.keyReplayed) metrics.idempotentReplays.inc();
      return;
    }
    try {
      await next();
    } catch (e) {
      renderError(ctx, e, ctx.state.log);
    }
    if (ctx.state.keyReplayed) metrics.idempotentReplays.inc();
    await keep(ctx, records, apiKeyId, key);
  };
}

/** Answers with the cached first answer. */
function replay(ctx: Ctx, begin: Extract<Begin, { kind: 'replay' }>, metrics: GatewayMetrics): void {
  metrics.idempotentReplays.inc();
  ctx.status = begin.status;
  for (const [h, val] of Object.entries(begin.headers)) ctx.set(h, val);
  ctx.set('Idempotent-Replayed', 'true');
  const body = JSON.parse(begin.body) as unknown;
  // Error bodies carry the id of the request that gets them, the replay's own.
  const error = errorOf(body);
  if (error) error.request_id = ctx.state.requestId;
  ctx.body = body;
}

/**
 * Caches the answer under the key (a 5xx frees it). The work is done and the service keeps its
 * answer: failing to cache it must not turn the answer into an error, and a retry then gets the
 * service's copy.
 */
async function keep(ctx: Ctx, records: IdempotencyRecords, apiKeyId: string, key: string): Promise<void> {
  try {
    // A 5xx, or the service's "still in flight" (the key's first run is not over), is no answer to keep.
    const details = errorOf(ctx.body)?.details;
    const inFlight = ctx.status === 409 && Array.isArray(details) && details.some((d) => (d as { issue?: unknown })?.issue === 'in_flight');
    if (ctx.status >= 500 || inFlight) {
      await records.release(apiKeyId, key);
      return;
    }
    const headers: Record<string, string> = {};
    const replayed = ctx.response.get('Idempotent-Replayed');
    if (replayed) headers['Idempotent-Replayed'] = String(replayed);
    // The stored copy drops the request id: a replay carries its own.
    const stored = JSON.parse(JSON.stringify(ctx.body ?? null)) as unknown;
    const storedError = errorOf(stored);
    if (storedError) delete storedError.request_id;
    await records.complete(apiKeyId, key, ctx.status, headers, JSON.stringify(stored));
  } catch (err) {
    ctx.state.log.warn({ err }, 'could not record the Idempotency-Key response');
  }
}
