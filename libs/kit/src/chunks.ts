import { randomBytes } from 'node:crypto';
import type { NatsConnection, Subscription } from 'nats';
import { chunkSubjectBase } from '@acct/contracts';
import type { Logger } from './logger';

/**
 * Messages larger than the NATS server's max_payload (1 MiB by default) cannot travel as one
 * message, yet a 1 MiB JSON body (API-DECISIONS §6) plus its envelope, or the reply that shows it,
 * is larger. Such a message is parked here and sent as a small reference instead; the receiver
 * fetches its parts, each under the limit, with ordinary requests to the sender's own subject (not
 * a queue group, so they reach the process that holds them). Parts are dropped once all were
 * fetched, or after a TTL when the receiver never came.
 */

/** The reference sent in place of a large message. */
export interface ChunkedRef {
  $chunked: { subject: string; parts: number; bytes: number };
}

export function isChunkedRef(v: unknown): v is ChunkedRef {
  if (typeof v !== 'object' || v === null || !('$chunked' in v)) return false;
  const c = (v as ChunkedRef).$chunked;
  return typeof c === 'object' && c !== null && typeof c.subject === 'string' && Number.isInteger(c.parts) && c.parts > 0 && Number.isInteger(c.bytes);
}

/** The name the connection was opened with (connectNats: the service, which is also its NATS user); `anon` without one. */
export function connectionName(nc: NatsConnection): string {
  const name = (nc as unknown as { options?: { name?: unknown } }).options?.name;
  return typeof name === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(name) ? name : 'anon';
}

/** Room for headers and protocol overhead beside a part's bytes. */
const PART_HEADROOM_BYTES = 4 * 1024;

/** The largest message this connection may publish as one, with room for headers. */
export function messageLimit(nc: NatsConnection): number {
  const max = nc.info?.max_payload ?? 1024 * 1024;
  return Math.max(1024, max - PART_HEADROOM_BYTES);
}

interface Parked {
  parts: Uint8Array[];
  served: Set<number>;
  bytes: number;
  timer: NodeJS.Timeout;
}

export interface ChunkStoreOptions {
  /** How long parts wait for their receiver. */
  ttlMs?: number;
  /** The most bytes parked at once; beyond it put() refuses (the sender answers an error instead). */
  maxBytes?: number;
}

export class ChunkStoreFull extends Error {}

export class ChunkStore {
  private readonly base: string;
  private readonly parked = new Map<string, Parked>();
  private parkedBytes = 0;
  private sub?: Subscription;
  private ready?: Promise<void>;
  private readonly ttlMs: number;
  private readonly maxBytes: number;

  constructor(
    private readonly nc: NatsConnection,
    prefix: string,
    private readonly log?: Logger,
    opts: ChunkStoreOptions = {},
  ) {
    // Under the connection's own name: on a bus with permissions, only it may subscribe there.
    this.base = `${chunkSubjectBase(prefix, connectionName(nc))}.${randomBytes(9).toString('base64url').replace(/[-_]/g, 'x')}`;
    this.ttlMs = opts.ttlMs ?? 30_000;
    this.maxBytes = opts.maxBytes ?? 256 * 1024 * 1024;
  }

  /** Subscribes once, and makes sure the server knows the subscription before a reference leaves. */
  private listen(): Promise<void> {
    this.ready ??= (async () => {
      this.sub = this.nc.subscribe(`${this.base}.*.*`, {
        callback: (err, msg) => {
          if (err) return;
          const [id, index] = msg.subject.slice(this.base.length + 1).split('.');
          const p = id === undefined ? undefined : this.parked.get(id);
          const i = Number(index);
          const part = p?.parts[i];
          if (!p || !part) {
            msg.respond(new Uint8Array(0)); // unknown or expired: an empty part tells the receiver
            return;
          }
          try {
            msg.respond(part);
          } catch (e) {
            this.log?.error({ err: e, subject: msg.subject }, 'could not send a message part');
            return;
          }
          p.served.add(i);
          if (p.served.size === p.parts.length) this.drop(id!);
        },
      });
      await this.nc.flush();
    })();
    return this.ready;
  }

  private drop(id: string): void {
    const p = this.parked.get(id);
    if (!p) return;
    clearTimeout(p.timer);
    this.parked.delete(id);
    this.parkedBytes -= p.bytes;
  }

  /** Parks data in parts under the connection's message limit; returns the reference to send. */
  async put(data: Uint8Array): Promise<ChunkedRef> {
    if (this.parkedBytes + data.length > this.maxBytes) throw new ChunkStoreFull(`over ${this.maxBytes} bytes of large messages are waiting`);
    await this.listen();
    const size = messageLimit(this.nc);
    const parts: Uint8Array[] = [];
    for (let off = 0; off < data.length; off += size) parts.push(data.subarray(off, off + size));
    const id = randomBytes(12).toString('hex');
    const timer = setTimeout(() => this.drop(id), this.ttlMs);
    timer.unref();
    this.parked.set(id, { parts, served: new Set(), bytes: data.length, timer });
    this.parkedBytes += data.length;
    return { $chunked: { subject: `${this.base}.${id}`, parts: parts.length, bytes: data.length } };
  }

  get waitingBytes(): number {
    return this.parkedBytes;
  }

  close(): void {
    for (const id of [...this.parked.keys()]) this.drop(id);
    this.sub?.unsubscribe();
  }
}

/** Fetches the parts a reference names, in order, and joins them. */
export async function fetchChunked(nc: NatsConnection, ref: ChunkedRef, timeoutMs: number): Promise<Uint8Array> {
  const { subject, parts, bytes } = ref.$chunked;
  const out = new Uint8Array(bytes);
  let off = 0;
  for (let i = 0; i < parts; i++) {
    const msg = await nc.request(`${subject}.${i}`, new Uint8Array(0), { timeout: timeoutMs });
    if (msg.data.length === 0 || off + msg.data.length > bytes) throw new Error(`part ${i} of ${subject} is missing or too long`);
    out.set(msg.data, off);
    off += msg.data.length;
  }
  if (off !== bytes) throw new Error(`${subject}: got ${off} of ${bytes} bytes`);
  return out;
}
