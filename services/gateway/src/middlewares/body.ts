import { koaBody } from 'koa-body';
import { AppError, limits } from '@acct/contracts';
import type { Middleware } from './state';

/** Maps a failure of the JSON body parser (raw-body / co-body errors) to the envelope's vocabulary. */
export function bodyError(err: { status?: number; type?: string }): AppError {
  if (err.status === 413 || err.type === 'entity.too.large') {
    return new AppError('validation_failed', `The request body is over the ${limits.json_body_bytes_max}-byte limit.`, [], 413);
  }
  if (err.status === 415 || err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
    return new AppError('validation_failed', 'The body uses an unsupported encoding or charset.', [], 415);
  }
  return AppError.validation('The request body is not valid JSON.', [{ field: '/', issue: 'malformed_json', message: 'The body could not be parsed as JSON.' }]);
}

/** A request that carries a body must say it is JSON: anything else is 415. */
export const requireJson: Middleware = async (ctx, next) => {
  const length = Number(ctx.get('content-length') || 0);
  const chunked = Boolean(ctx.get('transfer-encoding'));
  if ((length > 0 || chunked) && !ctx.is('application/json', '+json')) {
    throw new AppError(
      'validation_failed',
      'Send the body as application/json.',
      [{ field: 'Content-Type', issue: 'unsupported_media_type', message: `Content-Type ${ctx.get('content-type') || '(none)'} is not supported.` }],
      415,
    );
  }
  await next();
};

/** Strict JSON (objects and arrays only) up to limits.json_body_bytes_max, into ctx.request.body. */
export const parseJson: Middleware = koaBody({
  json: true,
  jsonLimit: limits.json_body_bytes_max,
  jsonStrict: true,
  urlencoded: false,
  text: false,
  multipart: false,
  patchNode: false,
  patchKoa: true,
  onError: (err: Error) => {
    throw bodyError(err as { status?: number; type?: string });
  },
});
