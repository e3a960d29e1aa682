import net from 'node:net';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { loadGatewayConfig } from './config';
import { createGatewayServer } from './server';

/** Sends `text` on a raw socket and resolves with what came back and when the server closed it. */
function rawExchange(port: number, text: string, giveUpMs: number): Promise<{ reply: string; closedAfterMs: number | null }> {
  return new Promise((resolve) => {
    const started = Date.now();
    let reply = '';
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ reply, closedAfterMs: null });
    }, giveUpMs);
    socket.on('data', (d) => (reply += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ reply, closedAfterMs: Date.now() - started });
    });
  });
}

describe('createGatewayServer', () => {
  let server: ReturnType<typeof createGatewayServer>;
  let port: number;
  beforeAll(async () => {
    const app = new Koa();
    app.silent = true; // the aborted request's error is expected here
    app.use(async (ctx) => {
      let bytes = 0;
      for await (const chunk of ctx.req) bytes += (chunk as Buffer).length; // waits for the whole body, as parseJson does
      ctx.body = `ok ${bytes}`;
    });
    server = createGatewayServer(app, { requestTimeoutMs: 600, headersTimeoutMs: 300 });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('answers 408 and closes a request whose body is shorter than its Content-Length within the request timeout', async () => {
    const r = await rawExchange(port, 'POST /x HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":', 5000);
    expect(r.closedAfterMs).not.toBeNull();
    expect(r.closedAfterMs!).toBeLessThan(2000);
    expect(r.reply).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a connection whose headers never finish within the headers timeout', async () => {
    const r = await rawExchange(port, 'GET /x HTTP/1.1\r\nHost: t\r\n', 5000);
    expect(r.closedAfterMs).not.toBeNull();
    expect(r.closedAfterMs!).toBeLessThan(2000);
  });

  it('still serves a complete request', async () => {
    const r = await rawExchange(port, 'GET /x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n', 5000);
    expect(r.reply).toMatch(/^HTTP\/1\.1 200/);
  });

  it('answers a request head over the size limit with 431 in the error envelope', async () => {
    const r = await rawExchange(port, `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: t\r\n\r\n`, 5000);
    expect(r.reply).toMatch(/^HTTP\/1\.1 431/);
    const body = JSON.parse(r.reply.slice(r.reply.indexOf('\r\n\r\n') + 4));
    expect(body.error).toMatchObject({ code: 'validation_failed', details: [] });
    expect(r.reply).toContain(`Request-Id: ${body.error.request_id}`);
  });

  it('answers bytes that are not HTTP with 400 in the error envelope', async () => {
    const r = await rawExchange(port, 'HELLO THERE\r\n\r\n', 5000);
    expect(r.reply).toMatch(/^HTTP\/1\.1 400/);
    expect(JSON.parse(r.reply.slice(r.reply.indexOf('\r\n\r\n') + 4)).error.code).toBe('validation_failed');
  });
});

describe('gateway config', () => {
  it('defaults the request and headers timeouts to 30 s and 10 s', () => {
    const c = loadGatewayConfig({});
    expect(c.HTTP_REQUEST_TIMEOUT_MS).toBe(30_000);
    expect(c.HTTP_HEADERS_TIMEOUT_MS).toBe(10_000);
  });
});
