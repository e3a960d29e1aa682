import { Events, type Msg, type MsgHdrs, type NatsConnection, createInbox, headers as natsHeaders } from 'nats';
import { decodeJson } from './payloads';
import { publishInTurn } from './turn-publish';

/**
 * Request/reply on a connection through nats.js's public API: RpcClient's calls and the outbox's
 * JetStream publishes share one Requester (one inbox subscription) per connection.
 */

/** Why a request got no reply: each is service_unavailable with its own reason. */
export type NoReply = 'no_responders' | 'timeout' | 'unreachable';

export class RequestFailed extends Error {
  constructor(readonly why: NoReply) {
    super(why);
  }
}

export const REASON: Record<NoReply, string> = {
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

/** Replies to requests on nc come to inboxes under this prefix (connectNats: its principal's). */
export function useInboxPrefix(nc: NatsConnection, prefix: string): void {
  inboxPrefixes.set(nc, prefix);
}

/**
 * Request/reply on one inbox subscription of this client's own (`<inbox>.<n>`), through the public
 * API (subscribe, publish with a reply subject), instead of nc.request(): nats.js's request rejects
 * an internal promise with a new NatsError after every reply it resolves, which costs the caller
 * about half again its CPU per request (docs/performance.md). Same protocol:
 * one wildcard inbox per connection, a 503 status without payload is "no responders", a timeout per
 * request; a permission error on the inbox or on a request's subject fails the requests concerned
 * at once, and the connection closing fails every request still waiting.
 */
export class Requester {
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
      publishInTurn(this.nc, subject, data, headers ? { reply: base + token, headers } : { reply: base + token }, () => entry.done(new RequestFailed('unreachable')));
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

export function requesterOf(nc: NatsConnection): Requester {
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
