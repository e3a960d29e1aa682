import type { Readable } from 'node:stream';
import type { RouteDef, RpcReply, TrustedContext } from '@acct/contracts';
import { sendReply, trustedContext } from './forward';
import type { Middleware } from './state';

export interface UploadRequest {
  ctx: TrustedContext;
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** The request body, unread: the handler streams it where it belongs (multipart to storage). */
  stream: Readable;
  /** The Content-Type header as sent ('' when none), e.g. multipart/form-data with its boundary. */
  contentType: string;
  /** The Content-Length header, when the client sent one. */
  contentLength?: number;
}

/** Serves an upload route: consumes the stream and answers like a service would. */
export type UploadHandler = (req: UploadRequest) => Promise<RpcReply>;

/** The last step of an upload route: the request stream goes to the route's handler. */
export function upload(route: RouteDef, handler: UploadHandler): Middleware {
  return async (ctx) => {
    const length = ctx.get('content-length');
    const reply = await handler({
      ctx: trustedContext(ctx, route),
      params: { ...ctx.params },
      query: ctx.state.query ?? {},
      stream: ctx.req,
      contentType: ctx.get('content-type'),
      ...(length ? { contentLength: Number(length) } : {}),
    });
    sendReply(ctx, reply);
  };
}
