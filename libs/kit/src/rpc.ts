import { connect, Events, type NatsConnection, type Msg, type Subscription, ErrorCode as NatsErrorCode, NatsError } from 'nats';
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
  isAppError,
  operationsOf,
  queueGroup,
  rpcSubject,
} from '@acct/contracts';
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

export async function connectNats(servers: string, name: string, log: Logger): Promise<NatsConnection> {
  const nc = await connect({
    servers: servers.split(',').map((s) => s.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
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

/**
 * Serves a service's operations in its queue group. A handler returns {status, body} or throws an
 * AppError; anything else becomes internal_error (logged, never sent to the caller in detail).
 */
export class RpcServer {
  private readonly subs: Subscription[] = [];
  private readonly inflight = new Set<Promise<void>>();
  private readonly handlers = new Map<RpcOperation, WireHandler>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
    private readonly service: ServiceName,
    private readonly log: Logger,
    private readonly metrics?: ServiceMetrics,
  ) {}

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
    const started = process.hrtime.bigint();
    let reply: RpcReply;
    let req: RpcRequest | undefined;
    try {
      req = decodeJson<RpcRequest>(msg.data);
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
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.metrics?.rpcServerDuration.observe({ operation: op, outcome }, seconds);
    this.log.debug({ op, outcome, request_id: req?.ctx?.requestId, duration_ms: Math.round(seconds * 1e6) / 1e3 }, 'rpc');
    if (msg.reply) msg.respond(encodeJson(reply));
  }

  /** Stop taking requests, then wait for the ones in flight. */
  async drain(): Promise<void> {
    await Promise.all(this.subs.map((s) => s.drain().catch(() => undefined)));
    await Promise.allSettled([...this.inflight]);
  }
}

/** Calls operations; a timeout or no responders becomes service_unavailable, never a hang. */
export class RpcClient {
  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
    private readonly timeoutMs: number,
    private readonly metrics?: ServiceMetrics,
  ) {}

  /** Calls op with the request RPC_CATALOGUE declares for it; the reply body is typed likewise. */
  async call<K extends RpcOperation>(op: K, req: RpcRequestOf<K>): Promise<RpcReplyOf<K>> {
    const started = process.hrtime.bigint();
    let outcome = 'ok';
    try {
      const msg = await this.nc.request(rpcSubject(this.prefix, op), encodeJson(req), { timeout: this.timeoutMs });
      const reply = decodeJson<RpcReplyOf<K>>(msg.data);
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
      this.metrics?.rpcClientDuration.observe({ operation: op, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }
}
