import {
  connect,
  type ConnectionOptions,
  createInbox,
  Events,
  type NatsConnection,
  type Msg,
  type MsgHdrs,
  type Subscription,
  headers as natsHeaders,
  ErrorCode as NatsErrorCode,
  NatsError,
  nkeyAuthenticator,
} from 'nats';
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
import { MessageTooLarge, decodeJson, encodeJson, fromMessage, toMessage } from './payloads';
import { type RpcIdempotency, answerOnce, requestKeyOf } from './rpc-idempotency';
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
  if (authOptions.inboxPrefix) inboxPrefixes.set(nc, authOptions.inboxPrefix);
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
        throw e;
      });
      // Checked against the operation's schemas as the gateway checks the route (a message made by hand gets 400, not a database error).
      const problem = this.options.checkRequests === false ? null : rpcRequestProblem(op, req);
      if (problem) throw problem;
      const key = this.options.keys ? requestKeyOf(req.ctx) : null;
      const r = req;
      reply = key
        ? await answerOnce(this.options.keys!, key, op, {
            run: () => handler(r).catch((e: unknown) => this.failure(op, e, r)),
            unrecorded: (err) => this.log.warn({ err, op, request_id: r.ctx.requestId }, 'could not record the Idempotency-Key answer'),
          })
        : await handler(req);
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

  /** Sends the reply; if it cannot go (too large even deflated, the bus refuses it), a small error does. */
  private async respond(op: RpcOperation, msg: Msg, reply: RpcReply, req: RpcRequest | undefined): Promise<void> {
    try {
      const out = toMessage(this.nc, reply);
      if (out instanceof Uint8Array) msg.respond(out);
      else {
        const { data, headers } = await out;
        msg.respond(data, { headers });
      }
      return;
    } catch (e) {
      this.log.error({ err: e, op, request_id: req?.ctx?.requestId }, 'could not send the reply');
      const error: RpcReply = { ok: false, error: { code: 'internal_error', message: 'The reply could not be sent.', details: [] } };
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

/** Why a request got no reply: each is service_unavailable with its own reason. */
type NoReply = 'no_responders' | 'timeout' | 'unreachable';

class RequestFailed extends Error {
  constructor(readonly why: NoReply) {
    super(why);
  }
}

const REASON: Record<NoReply, string> = {
  no_responders: 'no instance is running',
  timeout: 'it did not answer in time',
  unreachable: 'the message bus is unreachable',
};

interface Pending {
  subject: string;
  done(err: RequestFailed | null, msg?: Msg): void;
}

/**
 * The inbox prefix connectNats gave a connection (its principal's, natsAuthOptions); a connection
 * opened otherwise uses nats.js's default `_INBOX`.
 */
const inboxPrefixes = new WeakMap<NatsConnection, string>();

/**
 * Request/reply on one inbox subscription of this client's own (`<inbox>.<n>`), through the public
 * API (subscribe, publish with a reply subject), instead of nc.request(): nats.js's request rejects
 * an internal promise with a new NatsError after every reply it resolves, which costs the caller
 * about half again its CPU per request (docs/performance.md). Same protocol:
 * one wildcard inbox per connection, a 503 status without payload is "no responders", a timeout per
 * request; a permission error on the inbox or on a request's subject fails the requests concerned
 * at once, and the connection closing fails every request still waiting.
 */
class Requester {
  private base: string | undefined;
  private readonly pending = new Map<string, Pending>();
  private seq = 0;

  constructor(private readonly nc: NatsConnection) {
    // Closed (or drained): no reply can come any more, not even to a request whose timer still runs.
    void nc.closed().then(() => this.failAll('unreachable'));
  }

  request(subject: string, data: Uint8Array, timeoutMs: number, headers?: MsgHdrs): Promise<Msg> {
    if (this.nc.isClosed()) return Promise.reject(new RequestFailed('unreachable'));
    const base = this.base ?? this.listen();
    const token = String(++this.seq);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => entry.done(new RequestFailed('timeout')), timeoutMs);
      const entry: Pending = {
        subject,
        done: (err, msg) => {
          clearTimeout(timer);
          this.pending.delete(token);
          if (err) reject(err);
          else resolve(msg!);
        },
      };
      this.pending.set(token, entry);
      try {
        this.nc.publish(subject, data, headers ? { reply: base + token, headers } : { reply: base + token });
      } catch {
        entry.done(new RequestFailed('unreachable'));
      }
    });
  }

  private failAll(why: NoReply, which: (p: Pending) => boolean = () => true): void {
    for (const p of [...this.pending.values()]) if (which(p)) p.done(new RequestFailed(why));
  }

  /** Subscribes the inbox (once, and again after a permission error took it away). */
  private listen(): string {
    const base = `${createInbox(inboxPrefixes.get(this.nc))}.`;
    const sub = this.nc.subscribe(`${base}*`, {
      callback: (err, msg) => {
        if (err) {
          // The inbox itself was refused: nothing can come back on it.
          if (this.base === base) this.base = undefined;
          this.failAll('unreachable');
          return;
        }
        const p = this.pending.get(msg.subject.slice(base.length));
        if (!p) return; // late: timed out already
        // NATS answers a request no one subscribes to with a 503 status and no payload.
        if (msg.data.length === 0 && msg.headers?.code === 503) p.done(new RequestFailed('no_responders'));
        else p.done(null, msg);
      },
    });
    void sub.closed.then(() => {
      if (this.base === base) this.base = undefined;
    });
    // A publish the connection's permissions refuse comes back as a status, naming the subject.
    void (async () => {
      for await (const s of this.nc.status()) {
        const ctx = (s as { permissionContext?: { operation: string; subject: string } }).permissionContext;
        if (s.type === Events.Error && ctx?.operation === 'publish') this.failAll('unreachable', (p) => p.subject === ctx.subject);
      }
    })().catch(() => undefined);
    this.base = base;
    return base;
  }
}

/** One Requester per connection: every RpcClient on it shares its inbox subscription. */
const requesters = new WeakMap<NatsConnection, Requester>();

function requesterOf(nc: NatsConnection): Requester {
  let r = requesters.get(nc);
  if (!r) requesters.set(nc, (r = new Requester(nc)));
  return r;
}

/** What a stream answers to a publish (a PubAck), or its error. */
interface PubAck {
  stream?: string;
  seq?: number;
  duplicate?: boolean;
  error?: { code?: number; err_code?: number; description?: string };
}

/**
 * A JetStream publish with a message id (the stream drops a second one within its dedupe window),
 * as js.publish() makes it, a request whose reply is the stream's ack, on the connection's
 * Requester instead of nc.request() (see Requester: a NatsError made after every reply). Resolves
 * once the stream holds the message; rejects when the stream refused it, when no stream takes the
 * subject (no responders), or after timeoutMs.
 */
export async function publishToStream(
  nc: NatsConnection,
  subject: string,
  data: Uint8Array,
  o: { msgID: string; headers?: MsgHdrs; timeoutMs?: number },
): Promise<{ stream: string; seq: number; duplicate: boolean }> {
  const headers = o.headers ?? natsHeaders();
  headers.set('Nats-Msg-Id', o.msgID);
  let msg: Msg;
  try {
    msg = await requesterOf(nc).request(subject, data, o.timeoutMs ?? JETSTREAM_ACK_TIMEOUT_MS, headers);
  } catch (e) {
    throw new Error(`JetStream did not take the message on ${subject}: ${e instanceof RequestFailed ? REASON[e.why] : String(e)}`, { cause: e });
  }
  const ack = decodeJson<PubAck>(msg.data);
  if (ack.error) throw new Error(`JetStream refused the message on ${subject}: ${ack.error.description ?? 'no description'} (${ack.error.err_code ?? ack.error.code})`);
  if (!ack.stream) throw new Error(`JetStream answered a publish on ${subject} without a stream`);
  return { stream: ack.stream, seq: ack.seq ?? 0, duplicate: ack.duplicate === true };
}

/** js.publish()'s default wait for the stream's ack. */
const JETSTREAM_ACK_TIMEOUT_MS = 5000;

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
        outcome = 'internal_error';
        this.log?.error({ err: e, op }, 'could not send the request');
        return { ok: false, error: { code: 'internal_error', message: 'The request could not be sent.', details: [] } };
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
