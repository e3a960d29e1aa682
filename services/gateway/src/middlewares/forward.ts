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
  // A keyed write goes with its fingerprint (the idempotency middleware's): the service answers for the key.
  const fingerprint = ctx.state.idempotencyFingerprint;
  return {
    organizationId: p.organizationId,
    connectedAppId: p.connectedAppId,
    environment: p.environment,
    apiKeyId: p.apiKeyId,
    requestId: ctx.state.requestId,
    ...((forwardsIdempotencyKey(route) || fingerprint) && idempotencyKey ? { idempotencyKey } : {}),
    ...(fingerprint && idempotencyKey ? { idempotencyFingerprint: fingerprint } : {}),
  };
}

/** A service's reply becomes the HTTP answer unchanged; `file` sends a reply's bytes as a file. */
export function sendReply(ctx: Ctx, reply: RpcReply, { file = false } = {}): void {
  if (reply.keyReplayed) {
    // The first answer to the request's Idempotency-Key, kept by the service (API-DECISIONS §2).
    ctx.state.keyReplayed = true;
    ctx.set('Idempotent-Replayed', 'true');
  }
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

/** How long storage may keep the gateway waiting (an answer, or the next bytes of a transfer), ms. */
export const DEFAULT_STORAGE_TIMEOUT_MS = 5000;

const storageDown = (why = 'Document storage is unavailable. Retry later.') => new AppError('service_unavailable', why);

/**
 * The bytes of a fetch body, each read bounded by ms: storage that stops sending mid-body fails the
 * stream (the client sees the connection cut, the headers being sent). The clock runs only while a
 * read waits on storage, never while a slow client holds the stream back.
 */
async function* boundedBody(body: ReadableStream<Uint8Array>, ms: number): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`storage sent nothing for ${ms} ms`)), ms);
      });
      let step: Awaited<ReturnType<typeof reader.read>>;
      try {
        step = await Promise.race([reader.read(), late]);
      } finally {
        clearTimeout(timer);
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    // Done, failed or abandoned by the client: the connection to storage is let go.
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * A file the service names by a short-lived URL (document bytes never travel over NATS): streamed
 * from storage to the client, with the stored type, an attachment name (RFC 6266), nosniff and the
 * SHA-256 as ETag and Digest. Storage down or silent for timeoutMs before the answer: 503; silent
 * as long mid-body: the connection is cut.
 */
export async function sendRemoteFile(ctx: Ctx, reply: RpcOk, timeoutMs = DEFAULT_STORAGE_TIMEOUT_MS): Promise<void> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error(`storage did not answer within ${timeoutMs} ms`)), timeoutMs);
  let res: Response;
  try {
    res = await fetch(reply.fileUrl!, { signal: ac.signal });
  } catch {
    throw storageDown();
  } finally {
    // The answer came (or not): from here each read of the body has its own bound.
    clearTimeout(timer);
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    throw storageDown(`Document storage answered ${res.status}. Retry later.`);
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
  ctx.body = Readable.from(boundedBody(res.body, timeoutMs), { objectMode: false });
}

/** The last step of a route served by a service: one RPC over NATS with the validated request. */
export function forward(route: RouteDef, { rpc, storageTimeoutMs }: { rpc: RpcCaller; storageTimeoutMs?: number }): Middleware {
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
    if (file && reply.ok && reply.fileUrl) return sendRemoteFile(ctx, reply, storageTimeoutMs);
    sendReply(ctx, reply, { file });
  };
}
