import { connect, type ConnectionOptions, Events, type NatsConnection, type Msg, type Subscription, ErrorCode as NatsErrorCode, NatsError, nkeyAuthenticator } from 'nats';
import {
  AppError,
  type RpcHandlerOf,
  type RpcOperation,
  type RpcReply,
  type RpcReplyOf,
  type RpcRequest,
  type RpcRequestOf,
  type RpcOk,
  type ServiceName,
  inboxPrefixOf,
  isAppError,
  operationsOf,
  queueGroup,
  rpcSubject,
  rpcTimeoutOf,
} from '@acct/contracts';
import { ChunkStore, ChunkStoreFull, fetchChunked, isChunkedRef, messageLimit } from './chunks';
import type { NatsAuthConfig } from './config';
import type { Logger } from './logger';
import type { ServiceMetrics } from './metrics';
import { isBackendUnavailable } from './unavailable';

const enc = new TextEncoder();
const dec = new TextDecoder();

export function encodeJson(v: unknown): Uint8Array {
  return enc.encode(JSON.stringify(v));
}
export function decodeJson<T>(data: Uint8Array): T {
  return JSON.parse(dec.decode(data)) as T;
}

/**
 * The connect options of a process's credentials (natsAuthSpec): an nkey seed, or a user and
 * password; none when both are unset. With credentials, replies come to the inbox prefix of `name`
 * (`_INBOX_<name>`), the only inbox its NATS user may subscribe to: `name` is its principal (the
 * service, or `admin`), whose permissions busPermissions() gives.
 */
export function natsAuthOptions(auth: Partial<NatsAuthConfig> | undefined, name: string): Partial<ConnectionOptions> {
  if (auth?.NATS_NKEY_SEED) return { authenticator: nkeyAuthenticator(new TextEncoder().encode(auth.NATS_NKEY_SEED)), inboxPrefix: inboxPrefixOf(name) };
  if (auth?.NATS_USER) {
    if (!auth.NATS_PASSWORD) throw new Error('NATS_USER is set without NATS_PASSWORD');
    return { user: auth.NATS_USER, pass: auth.NATS_PASSWORD, inboxPrefix: inboxPrefixOf(name) };
  }
  return {};
}

export async function connectNats(servers: string, name: string, log: Logger, auth?: Partial<NatsAuthConfig>): Promise<NatsConnection> {
  const nc = await connect({
    servers: servers.split(',').map((s) => s.trim()),
    name,
    ...natsAuthOptions(auth, name),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // Without it, nats.js builds an Error with a stack trace for every request and flush (17% of
    // the gateway's CPU per request); a timeout or no-responders error keeps its own message.
    noAsyncTraces: true,
  });
  (async () => {
    for await (const s of nc.status()) {
      // data: the server (disconnect) or the error code (error); only cluster updates carry an object.
      const data = typeof s.data === 'object' ? JSON.stringify(s.data) : String(s.data);
      if (s.type === Events.Disconnect || s.type === Events.Error) log.warn({ nats: s.type, data }, 'nats status');
      else if (s.type === Events.Reconnect) log.info({ nats: s.type }, 'nats reconnected');
    }
  })().catch(() => undefined);
  return nc;
}

/** A handler once its operation's types are erased: what travels over the wire is checked by the gateway. */
type WireHandler = (req: RpcRequest) => Promise<RpcOk>;

/** Time to fetch one part of a large request or reply. */
const PART_TIMEOUT_MS = 5000;

/** Decodes a message, fetching its parts first when it came as a reference to a large one. */
async function receive<T>(nc: NatsConnection, data: Uint8Array): Promise<T> {
  const v = decodeJson<unknown>(data);
  return (isChunkedRef(v) ? decodeJson<T>(await fetchChunked(nc, v, PART_TIMEOUT_MS)) : v) as T;
}

/** Encodes v as one message, or parks it in `chunks` and returns the reference when it is too large for one. */
async function outgoing(nc: NatsConnection, chunks: ChunkStore, v: unknown): Promise<Uint8Array> {
  const data = encodeJson(v);
  return data.length <= messageLimit(nc) ? data : encodeJson(await chunks.put(data));
}

/**
 * Serves a service's operations in its queue group. A handler returns {status, body} or throws an
 * AppError; anything else becomes internal_error (logged, never sent to the caller in detail).
 * Requests and replies over the bus's message limit travel in parts (see chunks.ts), and a reply
 * that cannot be sent becomes an error reply: a handler never takes its process down.
 */
export class RpcServer {
  private readonly subs: Subscription[] = [];
  private readonly chunks: ChunkStore;
  private readonly inflight = new Set<Promise<void>>();
  private readonly handlers = new Map<RpcOperation, WireHandler>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
    private readonly service: ServiceName,
    private readonly log: Logger,
    private readonly metrics?: ServiceMetrics,
  ) {
    this.chunks = new ChunkStore(nc, prefix, log);
  }

  /**
   * Serves op. The request and the success reply are typed by the operation's entry in RPC_CATALOGUE
   * (untyped only when op is not one known operation, e.g. a fake serving every operation).
   */
  handle<K extends RpcOperation>(op: K, handler: RpcHandlerOf<K>): this {
    this.handlers.set(op, handler as unknown as WireHandler);
    return this;
  }

  /** Subscribes every operation; refuses to start if an operation of the service has no handler. */
  start(): void {
    const missing = operationsOf(this.service).filter((op) => !this.handlers.has(op));
    if (missing.length) throw new Error(`${this.service}: no handler for ${missing.join(', ')}`);
    for (const [op, handler] of this.handlers) {
      const sub = this.nc.subscribe(rpcSubject(this.prefix, op), {
        queue: queueGroup(this.prefix, this.service),
        callback: (err, msg) => {
          if (err) {
            this.log.error({ err, op }, 'subscription error');
            return;
          }
          const p = this.dispatch(op, handler, msg).finally(() => this.inflight.delete(p));
          this.inflight.add(p);
        },
      });
      this.subs.push(sub);
    }
  }

  get inflightCount(): number {
    return this.inflight.size;
  }

  private async dispatch(op: RpcOperation, handler: WireHandler, msg: Msg): Promise<void> {
    const stopTimer = this.metrics?.rpcServerDuration.startTimer({ operation: op });
    let reply: RpcReply;
    let req: RpcRequest | undefined;
    try {
      req = await receive<RpcRequest>(this.nc, msg.data);
      reply = await handler(req);
    } catch (e) {
      if (isAppError(e)) {
        reply = { ok: false, error: e.toBody() };
      } else if (isBackendUnavailable(e)) {
        this.log.warn({ err: e, op, request_id: req?.ctx?.requestId }, 'database unavailable');
        reply = { ok: false, error: { code: 'service_unavailable', message: `The ${this.service} service cannot reach its database. Retry later.`, details: [] } };
      } else {
        this.log.error({ err: e, op, request_id: req?.ctx?.requestId }, 'handler failed');
        reply = { ok: false, error: { code: 'internal_error', message: 'An unexpected error occurred.', details: [] } };
      }
    }
    const outcome = reply.ok ? 'ok' : reply.error.code;
    const seconds = stopTimer?.({ outcome });
    this.log.debug({ op, outcome, request_id: req?.ctx?.requestId, duration_ms: seconds === undefined ? undefined : Math.round(seconds * 1e6) / 1e3 }, 'rpc');
    if (msg.reply) await this.respond(op, msg, reply, req);
  }

  /** Sends the reply; if it cannot go (too large to park, the bus refuses it), a small error does. */
  private async respond(op: RpcOperation, msg: Msg, reply: RpcReply, req: RpcRequest | undefined): Promise<void> {
    try {
      msg.respond(await outgoing(this.nc, this.chunks, reply));
      return;
    } catch (e) {
      const full = e instanceof ChunkStoreFull;
      this.log.error({ err: e, op, request_id: req?.ctx?.requestId }, 'could not send the reply');
      const error: RpcReply = full
        ? { ok: false, error: { code: 'service_unavailable', message: `The ${this.service} service is busy sending large replies. Retry later.`, details: [] } }
        : { ok: false, error: { code: 'internal_error', message: 'The reply could not be sent.', details: [] } };
      try {
        msg.respond(encodeJson(error));
      } catch (err) {
        this.log.error({ err, op }, 'could not send an error reply either');
      }
    }
  }

  /** Stop taking requests, then wait for the ones in flight. */
  async drain(): Promise<void> {
    await Promise.all(this.subs.map((s) => s.drain().catch(() => undefined)));
    await Promise.allSettled([...this.inflight]);
  }
}

/**
 * Calls operations; a timeout or no responders becomes service_unavailable, never a hang. Waits
 * `timeoutMs` for a reply, or the operation's own longer timeout (RpcDef.timeoutMs, rpcTimeoutOf).
 */
export class RpcClient {
  private readonly chunks: ChunkStore;

  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
    private readonly timeoutMs: number,
    private readonly metrics?: ServiceMetrics,
    log?: Logger,
  ) {
    this.chunks = new ChunkStore(nc, prefix, log);
  }

  /** Calls op with the request RPC_CATALOGUE declares for it; the reply body is typed likewise. */
  async call<K extends RpcOperation>(op: K, req: RpcRequestOf<K>): Promise<RpcReplyOf<K>> {
    const stopTimer = this.metrics?.rpcClientDuration.startTimer({ operation: op });
    let outcome = 'ok';
    try {
      const msg = await this.nc.request(rpcSubject(this.prefix, op), await outgoing(this.nc, this.chunks, req), { timeout: rpcTimeoutOf(op, this.timeoutMs) });
      const reply = await receive<RpcReplyOf<K>>(this.nc, msg.data);
      if (!reply.ok) outcome = reply.error.code;
      return reply;
    } catch (e) {
      outcome = 'service_unavailable';
      const code = e instanceof NatsError ? (e.code as NatsErrorCode) : undefined;
      const why = code === NatsErrorCode.NoResponders ? 'no instance is running' : code === NatsErrorCode.Timeout ? 'it did not answer in time' : 'the message bus is unreachable';
      return {
        ok: false,
        error: new AppError('service_unavailable', `The ${op.split('.')[0]} service is unavailable: ${why}. Retry later.`).toBody(),
      };
    } finally {
      stopTimer?.({ outcome });
    }
  }
}
