import { randomBytes } from 'node:crypto';
import type { Msg, NatsConnection } from 'nats';
import { type DeflatedMessage, MessageTooLarge, decodeJson, encodeJson, fromMessage, messageLimit, toMessage } from './payloads';

const bus = (max_payload: number) => ({ info: { max_payload } }) as unknown as NatsConnection;
const received = (m: { data: Uint8Array; headers?: Msg['headers'] }) => m as unknown as Msg;

describe('bus messages', () => {
  it('sends JSON that fits as it is, byte for byte, without headers', async () => {
    const v = { ctx: { requestId: 'r' }, body: { name: 'Ünïcode €' } };
    const m = toMessage(bus(1024 * 1024), v);
    expect(m).toEqual(encodeJson(v));
    expect(await fromMessage(received({ data: m as Uint8Array }))).toEqual(v);
  });

  it('deflates JSON over the limit, marks it, and inflates it back', async () => {
    const nc = bus(64 * 1024);
    const v = { body: { lines: Array.from({ length: 500 }, (_, i) => ({ description: `${i} ${'é€'.repeat(200)}`, quantity: 1 })) } };
    expect(encodeJson(v).length).toBeGreaterThan(messageLimit(nc));
    const m = await (toMessage(nc, v) as Promise<DeflatedMessage>);
    expect(m.headers?.get('Content-Encoding')).toBe('deflate');
    expect(m.data.length).toBeLessThanOrEqual(messageLimit(nc));
    expect(await fromMessage(received(m))).toEqual(v);
  });

  it('refuses what is still over the limit deflated', async () => {
    await expect(toMessage(bus(64 * 1024), { noise: randomBytes(200 * 1024).toString('base64') })).rejects.toBeInstanceOf(MessageTooLarge);
  });

  it('keeps room for headers under max_payload, and decodes JSON', () => {
    expect(messageLimit(bus(1024 * 1024))).toBe(1024 * 1024 - 4096);
    expect(decodeJson(encodeJson({ a: [1, 'b'] }))).toEqual({ a: [1, 'b'] });
  });
});
