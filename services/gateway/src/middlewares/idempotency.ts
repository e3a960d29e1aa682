import { AppError, type RouteDef, limits, takesIdempotencyKey } from '@acct/contracts';
import { type IdempotencyStore, fingerprint } from '../idempotency';
import type { GatewayMetrics } from '../metrics';
import { forwardsIdempotencyKey } from '../route-kind';
import { renderError } from './errors';
import type { Middleware } from './state';

/** What the middleware needs of the Idempotency-Key records: unit tests hand in a fake. */
export type IdempotencyRecords = Pick<IdempotencyStore, 'begin' | 'complete' | 'release'>;

/** The `error` object of an error envelope; undefined for any other body. */
function errorOf(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const { error } = body;
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : undefined;
}

/** Idempotency-Key on POST and PATCH (API-DECISIONS §2): the first answer is kept and replayed for a repeat. */
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
    const begin = await records.begin(apiKeyId, key, fingerprint(ctx.method, ctx.path, ctx.state.body));
    if (begin.kind === 'mismatch') {
      throw AppError.conflict('This Idempotency-Key was already used with a different method, path or body.', [
        { field: 'Idempotency-Key', issue: 'reused_with_different_request', message: 'Use a new key for a different request.' },
      ]);
    }
    if (begin.kind === 'in_flight') {
      throw AppError.conflict('A request with this Idempotency-Key is still being processed; retry shortly.', [
        { field: 'Idempotency-Key', issue: 'in_flight', message: 'The first request has not finished.' },
      ]);
    }
    if (begin.kind === 'replay') {
      metrics.idempotentReplays.inc();
      ctx.status = begin.status;
      for (const [h, val] of Object.entries(begin.headers)) ctx.set(h, val);
      ctx.set('Idempotent-Replayed', 'true');
      const replay = JSON.parse(begin.body) as unknown;
      // Error bodies carry the id of the request that gets them, the replay's own.
      const replayError = errorOf(replay);
      if (replayError) replayError.request_id = ctx.state.requestId;
      ctx.body = replay;
      return;
    }
    try {
      await next();
    } catch (e) {
      renderError(ctx, e, ctx.state.log);
    }
    // The work is done: failing to record it must not turn its answer into an error. If recording
    // fails, the key stays in flight until it goes stale and a retry then runs again (creates are
    // still safe on their external ids).
    try {
      if (ctx.status >= 500) {
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
  };
}
