import { Readable } from 'node:stream';
import { AppError } from '@acct/contracts';
import { silentLogger } from '@acct/testing';
import { documentUpload, drain } from './documents';

/** A body arriving in chunks, as from a socket: reads it counts. */
function body(bytes: number, chunk = 16 * 1024): Readable & { taken: () => number } {
  let sent = 0;
  let taken = 0;
  const r = new Readable({
    read() {
      if (sent >= bytes) return void this.push(null);
      const n = Math.min(chunk, bytes - sent);
      sent += n;
      setImmediate(() => this.push(Buffer.alloc(n, 0x5b)));
    },
  });
  r.on('data', (d: Buffer) => (taken += d.length));
  return Object.assign(r, { taken: () => taken });
}

describe('POST /documents refused before it is read', () => {
  it('reads the whole body before the 415 for a body that is not multipart (no reset of a client still sending)', async () => {
    const stream = body(200_013);
    const rpc = { call: jest.fn() };
    const upload = documentUpload({ rpc: rpc as never, log: silentLogger(), maxBytes: 25 * 1024 * 1024 });
    const refused = await upload({ ctx: {} as never, params: {}, query: {}, stream, contentType: 'application/json' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).httpStatus).toBe(415);
    expect(stream.readableEnded).toBe(true);
    expect(stream.taken()).toBe(200_013);
    expect(rpc.call).not.toHaveBeenCalled();
  });

  it('drains at most the upload limit', async () => {
    const stream = body(1_000_000);
    await drain(stream, 100_000);
    expect(stream.taken()).toBeGreaterThan(100_000);
    expect(stream.taken()).toBeLessThan(200_000);
    expect(stream.readableEnded).toBe(false);
  });
});
