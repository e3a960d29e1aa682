import { Readable } from 'node:stream';
import { AppError, type ProcessorHookBody, type PublicContext, type RouteDef, type RpcOk, type RpcReply, type RpcRequest, type TrustedContext } from '@acct/contracts';
import type { RpcClient } from '@acct/kit';
import { forwardsIdempotencyKey, kindOf } from '../route-kind';
import { sendError } from './errors';
import type { Ctx, Middleware } from './state';

/** What forwarding needs of the NATS client: unit tests hand in a fake. */
export type RpcCaller = Pick<RpcClient, 'call'>;

/** The context only the gateway may assert, from the API key, never from the request. */
export function trustedContext(ctx: Ctx, route: RouteDef): TrustedContext {
  const p = ctx.state.principal!;
  const idempotencyKey = ctx.get('idempotency-key');
  return {
    organizationId: p.organizationId,
    connectedAppId: p.connectedAppId,
    environment: p.environment,
    apiKeyId: p.apiKeyId,
    requestId: ctx.state.requestId,
    ...(forwardsIdempotencyKey(route) && idempotencyKey ? { idempotencyKey } : {}),
  };
}

/** A service's reply becomes the HTTP answer unchanged; `file` sends a reply's bytes as a file. */
export function sendReply(ctx: Ctx, reply: RpcReply, { file = false } = {}): void {
  if (!reply.ok) return sendError(ctx, reply.error.code, reply.error.message, reply.error.details ?? []);
  ctx.status = reply.status;
  if (file && reply.bodyBase64 !== undefined) sendFile(ctx, reply);
  else ctx.body = reply.status === 204 ? null : reply.body;
  if (reply.replayed) ctx.set('Idempotent-Replayed', 'true');
}

function sendFile(ctx: Ctx, reply: RpcOk): void {
  ctx.attachment(reply.filename); // Content-Disposition: attachment, with the filename when there is one
  ctx.type = reply.contentType ?? 'application/octet-stream';
  ctx.body = Buffer.from(reply.bodyBase64!, 'base64');
}

/** A raw route's bytes as they came (base64) and its signature header, for the service to verify. */
function rawBody(ctx: Ctx, route: RouteDef): ProcessorHookBody {
  const signature = route.signatureHeader ? ctx.get(route.signatureHeader) : '';
  return { payload_base64: (ctx.state.raw ?? Buffer.alloc(0)).toString('base64'), signature: signature || null };
}

/**
 * A file the service names by a short-lived URL (document bytes never travel over NATS): streamed
 * from storage to the client, with the stored type, an attachment name (RFC 6266), nosniff and the
 * SHA-256 as ETag and Digest. Storage down: 503.
 */
export async function sendRemoteFile(ctx: Ctx, reply: RpcOk): Promise<void> {
  let res: Response;
  try {
    res = await fetch(reply.fileUrl!, { signal: AbortSignal.timeout(10_000) });
  } catch {
    throw new AppError('service_unavailable', 'Document storage is unavailable. Retry later.');
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    throw new AppError('service_unavailable', `Document storage answered ${res.status}. Retry later.`);
  }
  ctx.status = 200;
  ctx.attachment(reply.filename);
  ctx.type = reply.contentType ?? 'application/octet-stream';
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'private, no-store');
  if (reply.sha256) {
    ctx.set('ETag', `"${reply.sha256}"`);
    ctx.set('Digest', `sha-256=${Buffer.from(reply.sha256, 'hex').toString('base64')}`);
  }
  const length = res.headers.get('content-length');
  if (length) ctx.length = Number(length);
  ctx.body = Readable.fromWeb(res.body);
}

/** The last step of a route served by a service: one RPC over NATS with the validated request. */
export function forward(route: RouteDef, { rpc }: { rpc: RpcCaller }): Middleware {
  if (!route.rpc) throw new Error(`route ${route.operationId} has no rpc operation to forward to`);
  const op = route.rpc;
  const file = kindOf(route) === 'download';
  const raw = kindOf(route) === 'raw';
  return async (ctx) => {
    const req: RpcRequest<unknown, Record<string, string>, Record<string, unknown>, TrustedContext | PublicContext> = {
      // No API key on a raw route: the service finds the tenancy from what the signature proves.
      ctx: raw ? { requestId: ctx.state.requestId } : trustedContext(ctx, route),
      params: { ...ctx.params },
      query: ctx.state.query ?? {},
      body: raw ? rawBody(ctx, route) : (ctx.state.body ?? {}),
    };
    const reply = await rpc.call(op, req);
    if (file && reply.ok && reply.fileUrl) return sendRemoteFile(ctx, reply);
    sendReply(ctx, reply, { file });
  };
}
