import { type ErrorCode, type ErrorDetail, HTTP_STATUS_BY_CODE, isAppError } from '@acct/contracts';
import { type Logger, isBackendUnavailable } from '@acct/kit';
import type { Ctx, Middleware } from './state';

const SERVICE_RETRY_AFTER_SECONDS = 1;

/** Writes the one error envelope; the only place an error code becomes an HTTP status. */
export function sendError(ctx: Ctx, code: ErrorCode, message: string, details: ErrorDetail[] = [], status?: number): void {
  ctx.status = status ?? HTTP_STATUS_BY_CODE[code];
  ctx.body = { error: { code, message, details, request_id: ctx.state.requestId } };
  if (code === 'service_unavailable') ctx.set('Retry-After', String(SERVICE_RETRY_AFTER_SECONDS));
}

/** Everything that goes wrong ends here and leaves in the one error envelope. */
export function renderError(ctx: Ctx, e: unknown, log: Logger): void {
  if (isAppError(e)) return sendError(ctx, e.code, e.message, e.details, e.httpStatus);
  if (isBackendUnavailable(e)) {
    log.warn({ err: e }, 'gateway database unavailable');
    return sendError(ctx, 'service_unavailable', 'The gateway cannot reach its database. Retry later.');
  }
  log.error({ err: e }, 'unhandled gateway error');
  sendError(ctx, 'internal_error', 'An unexpected error occurred.');
}

/** Renders whatever the chain below throws, and answers a request no route matched with 404. */
export function errors(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null) {
        sendError(ctx, 'not_found', `There is no route ${ctx.method} ${ctx.path}.`);
      }
    } catch (e) {
      renderError(ctx, e, ctx.state.log);
    }
  };
}
