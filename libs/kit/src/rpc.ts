import { connect, type ConnectionOptions, Events, type NatsConnection, type Msg, type Subscription, ErrorCode as NatsErrorCode, NatsError, nkeyAuthenticator } from 'nats';
import {
  AppError,
  type RpcHandlerOf,
  type RpcOperation,
  type RpcReply,
  type RpcReplyOf,
  type RpcRequest,
  type RpcRequestOf,
  type RpcFail,
  type RpcOk,
  type ServiceName,
  inboxPrefixOf,
  isAppError,
  operationsOf,
  queueGroup,
  rpcRequestProblem,
  rpcSubject,
  rpcTimeoutOf,
} from '@acct/contracts';
import type { NatsAuthConfig } from './config';
import type { Logger } from './logger';
import type { ServiceMetrics } from './metrics';
import { MessageTooLarge, UninflatableMessage, encodeJson, fromMessage, toMessage } from './payloads';
import { REASON, RequestFailed, type Requester, requesterOf, useInboxPrefix } from './requester';
import { publishInTurn } from './turn-publish';
import { type RpcIdempotency, answerKeyed } from './rpc-idempotency';
import { isBackendUnavailable } from './unavailable';

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
  const authOptions = natsAuthOptions(auth, name);
  const nc = await connect({
    servers: servers.split(',').map((s) => s.trim()),
    name,
    ...authOptions,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // Without it, nats.js builds an Error with a stack trace for every request and flush
    // (docs/performance.md); a timeout or no-responders error keeps its own message.
    noAsyncTraces: true,
  });
  if (authOptions.inboxPrefix) useInboxPrefix(nc, authOptions.inboxPrefix);
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
 * Requests and replies over the bus's message limit travel deflated (see payloads.ts), and a reply
 * that cannot be sent becomes an error reply: a handler never takes its process down.
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
    /**
     * checkRequests (default true): each request is checked against its operation's schemas before
     * its handler runs (rpcRequestProblem). Off only for tests of the transport, which send
     * arbitrary bodies to real operation names.
     * keys: the service's Idempotency-Key records; with them, a request that carries a key and its
     * fingerprint (a keyed POST or PATCH) is answered once and its first answer replayed after.
     */
    private readonly options: { checkRequests?: boolean; keys?: RpcIdempotency } = {},
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
    const stopTimer = this.metrics?.rpcServerDuration.startTimer({ operation: op });
    let reply: RpcReply;
    let req: RpcRequest | undefined;
    try {
      req = await fromMessage<RpcRequest>(msg).catch((e: unknown) => {
        if (e instanceof SyntaxError)
          throw AppError.validation('The request is not JSON.', [{ field: '/', issue: 'malformed_json', message: 'The message could not be parsed as JSON.' }]);
        if (e instanceof UninflatableMessage)
          throw AppError.validation('The request is marked deflated but does not inflate.', [
            { field: '/', issue: 'malformed_encoding', message: 'The message could not be inflated within its limit.' },
          ]);
        throw e;
      });
      // Checked against the operation's schemas as the gateway checks the route (a message made by hand gets 400, not a database error).
      const problem = this.options.checkRequests === false ? null : rpcRequestProblem(op, req);
      if (problem) throw problem;
      const r = req;
      reply = await answerKeyed(this.options.keys, op, r, { run: () => handler(r), failure: (e) => this.failure(op, e, r), log: this.log });
    } catch (e) {
      reply = this.failure(op, e, req);
    }
    const outcome = reply.ok ? 'ok' : reply.error.code;
    const seconds = stopTimer?.({ outcome });
    this.log.debug({ op, outcome, request_id: req?.ctx?.requestId, duration_ms: seconds === undefined ? undefined : Math.round(seconds * 1e6) / 1e3 }, 'rpc');
    if (msg.reply) await this.respond(op, msg, reply, req);
  }

  /** What a handler's throw answers: an AppError as it is, a database outage 503, anything else 500 (logged). */
  private failure(op: RpcOperation, e: unknown, req: RpcRequest | undefined): RpcFail {
    if (isAppError(e)) return { ok: false, error: e.toBody() };
    if (isBackendUnavailable(e)) {
      this.log.warn({ err: e, op, request_id: req?.ctx?.requestId }, 'database unavailable');
      return { ok: false, error: { code: 'service_unavailable', message: `The ${this.service} service cannot reach its database. Retry later.`, details: [] } };
    }
    this.log.error({ err: e, op, request_id: req?.ctx?.requestId }, 'handler failed');
    return { ok: false, error: { code: 'internal_error', message: 'An unexpected error occurred.', details: [] } };
  }

  /** Sends the reply (with the turn's other publishes); if it cannot go (too large even deflated, the bus refuses it), a small error does. */
  private async respond(op: RpcOperation, msg: Msg, reply: RpcReply, req: RpcRequest | undefined): Promise<void> {
    const to = msg.reply!;
    const failed = (e: unknown) => {
      this.log.error({ err: e, op, request_id: req?.ctx?.requestId }, 'could not send the reply');
      const error: RpcReply = { ok: false, error: { code: 'internal_error', message: 'The reply could not be sent.', details: [] } };
      publishInTurn(this.nc, to, encodeJson(error), undefined, (err) => this.log.error({ err, op }, 'could not send an error reply either'));
    };
    try {
      const out = toMessage(this.nc, reply);
      if (out instanceof Uint8Array) publishInTurn(this.nc, to, out, undefined, failed);
      else {
        const { data, headers } = await out;
        publishInTurn(this.nc, to, data, { headers }, failed);
      }
    } catch (e) {
      failed(e);
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
  private readonly requester: Requester;

  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
    private readonly timeoutMs: number,
    private readonly metrics?: ServiceMetrics,
    private readonly log?: Logger,
    /**
     * Whether requests keep their Idempotency-Key fingerprint: the gateway's client alone, which
     * sends the keyed request a service answers once. A service calling another with the context
     * of its own request drops it, so that its reads and writes are not taken for that request.
     */
    private readonly keyed = false,
  ) {
    this.requester = requesterOf(nc);
  }

  /** Calls op with the request RPC_CATALOGUE declares for it; the reply body is typed likewise. */
  async call<K extends RpcOperation>(op: K, req: RpcRequestOf<K>): Promise<RpcReplyOf<K>> {
    const stopTimer = this.metrics?.rpcClientDuration.startTimer({ operation: op });
    let outcome = 'ok';
    try {
      const sent = this.keyed || !(req.ctx && 'idempotencyFingerprint' in req.ctx) ? req : { ...req, ctx: { ...req.ctx, idempotencyFingerprint: undefined } };
      const out = toMessage(this.nc, sent);
      const big = out instanceof Uint8Array ? undefined : await out;
      const msg = await this.requester.request(rpcSubject(this.prefix, op), big?.data ?? (out as Uint8Array), rpcTimeoutOf(op, this.timeoutMs), big?.headers);
      const reply = await fromMessage<RpcReplyOf<K>>(msg);
      if (!reply.ok) outcome = reply.error.code;
      return reply;
    } catch (e) {
      if (e instanceof MessageTooLarge) {
        // The caller's input is too large for the bus even deflated: the caller's to fix (a 400, never a 500).
        outcome = 'validation_failed';
        this.log?.warn({ err: e, op }, 'request too large for the bus even deflated');
        return { ok: false, error: AppError.validation('The request is too large to forward, even compressed; send a smaller body.').toBody() };
      }
      outcome = 'service_unavailable';
      return { ok: false, error: new AppError('service_unavailable', `The ${op.split('.')[0]} service is unavailable: ${whyNoReply(e)}. Retry later.`).toBody() };
    } finally {
      stopTimer?.({ outcome });
    }
  }
}

/** Why a request got no reply, from what its sending or waiting threw. */
function whyNoReply(e: unknown): string {
  if (e instanceof RequestFailed) return REASON[e.why];
  const code = e instanceof NatsError ? (e.code as NatsErrorCode) : undefined;
  return code === NatsErrorCode.NoResponders ? REASON.no_responders : code === NatsErrorCode.Timeout ? REASON.timeout : REASON.unreachable;
}
