import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import { type Msg, type MsgHdrs, type NatsConnection, headers as natsHeaders } from 'nats';

/**
 * What a request or reply is on the bus: its JSON, as one message. A message over the server's
 * max_payload (1 MiB by default: a JSON body at its limit of 1 MiB, API-DECISIONS §6, plus its
 * envelope, or the reply that shows it) travels deflated instead, marked `Content-Encoding:
 * deflate`: JSON at these limits shrinks far under the limit (the worst, random text, to under
 * eight tenths of it), so the body limit holds on a NATS server as it ships (docs/message-size.md).
 */

const enc = new TextEncoder();
const dec = new TextDecoder();

export function encodeJson(v: unknown): Uint8Array {
  return enc.encode(JSON.stringify(v));
}
export function decodeJson<T>(data: Uint8Array): T {
  return JSON.parse(dec.decode(data)) as T;
}

/** Room for headers and protocol overhead beside a message's bytes. */
const HEADROOM_BYTES = 4 * 1024;

/** The most bytes a deflated message may inflate to: far over any request or reply the limits allow. */
export const INFLATED_BYTES_MAX = 64 * 1024 * 1024;

const CONTENT_ENCODING = 'Content-Encoding';
const DEFLATE = 'deflate';

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/** The largest message this connection may publish as one, with room for headers. */
export function messageLimit(nc: NatsConnection): number {
  const max = nc.info?.max_payload ?? 1024 * 1024;
  return Math.max(1024, max - HEADROOM_BYTES);
}

/** A message still over the bus's limit once deflated: it cannot be sent. */
export class MessageTooLarge extends Error {}

/** A message deflated: its bytes, and the header that says so. */
export interface DeflatedMessage {
  data: Uint8Array;
  headers: MsgHdrs;
}

/**
 * The JSON of v as one message: as it is when it fits (no promise, no wrapper: the hot path), else
 * a promise of it deflated.
 */
export function toMessage(nc: NatsConnection, v: unknown): Uint8Array | Promise<DeflatedMessage> {
  const data = encodeJson(v);
  const limit = messageLimit(nc);
  return data.length <= limit ? data : deflated(data, limit);
}

async function deflated(data: Uint8Array, limit: number): Promise<DeflatedMessage> {
  const packed = await deflate(data);
  if (packed.length > limit) throw new MessageTooLarge(`${data.length} bytes, ${packed.length} deflated, over the bus's limit of ${limit}`);
  const headers = natsHeaders();
  headers.set(CONTENT_ENCODING, DEFLATE);
  return { data: packed, headers };
}

/** A message marked deflated whose bytes do not inflate, or inflate past INFLATED_BYTES_MAX: the sender's fault. */
export class UninflatableMessage extends Error {}

/** Decodes a message, inflating it first when it came deflated (SyntaxError: not JSON; UninflatableMessage). */
export async function fromMessage<T>(msg: Msg): Promise<T> {
  if (msg.headers?.get(CONTENT_ENCODING) !== DEFLATE) return decodeJson<T>(msg.data);
  const data = await inflate(msg.data, { maxOutputLength: INFLATED_BYTES_MAX }).catch((e: unknown) => {
    throw new UninflatableMessage(e instanceof Error ? e.message : String(e));
  });
  return decodeJson<T>(data);
}
