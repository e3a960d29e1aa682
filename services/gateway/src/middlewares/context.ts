import { randomUUID } from 'node:crypto';
import { type Logger, unredacted } from '@acct/kit';
import type { GatewayMetrics } from '../metrics';
import type { Middleware } from './state';

/** A caller's X-Request-Id is kept when it is this tame; otherwise the gateway makes one. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request id, a child logger that carries it, the access log line and the HTTP metrics. The child
 * logger (pino with redaction: 5% of the gateway's CPU per request) is made the first time
 * something logs, so not at all for a request that logs nothing at the configured level, nor for
 * the access log line, which carries the request id as a field of its own and skips redaction.
 */
export function requestContext({ log, metrics }: { log: Logger; metrics: GatewayMetrics }): Middleware {
  // The access log line: request id, method, route, status, duration, key id (nothing to redact).
  const access = unredacted(log);
  return async (ctx, next) => {
    const endTimer = metrics.httpDuration.startTimer();
    const given = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    let child: Logger | undefined;
    let replaced = false;
    Object.defineProperty(ctx.state, 'log', {
      configurable: true,
      enumerable: true,
      get: () => (child ??= log.child({ request_id: requestId })),
      set: (v: Logger) => {
        child = v;
        replaced = true;
      },
    });
    ctx.set('Request-Id', ctx.state.requestId);
    metrics.httpInFlight.inc();
    try {
      await next();
    } finally {
      metrics.httpInFlight.dec();
      const route = ctx.state.routePath ?? 'unmatched';
      const seconds = endTimer({ method: ctx.method, route, status: String(ctx.status) });
      if (log.isLevelEnabled('info')) {
        const line = { method: ctx.method, route, status: ctx.status, duration_ms: Math.round(seconds * 1e6) / 1e3, api_key_id: ctx.state.principal?.apiKeyId };
        // The line a child logger would write (its bindings come right before the logged fields),
        // without making one and without the redaction pass (docs/performance.md, the access log).
        if (replaced) child!.info(line, 'request');
        else access.info({ request_id: requestId, ...line }, 'request');
      }
    }
  };
}
