import net from 'node:net';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { createGatewayApp } from './app';
import { loadGatewayConfig } from './config';
import { createGatewayServer } from './server';
import { TEST_KEY, fakeGatewayDeps } from './testing/fakes';

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

/**
 * A slow-loris client: sends a request line, then one header line every `everyMs`, never the blank
 * line that ends the headers; like most raw clients it does not close its side when the server
 * closes its own (a half-open connection), and keeps writing until the connection is gone.
 */
function trickler(port: number, everyMs: number) {
  const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  let reply = '';
  let lines = 0;
  let timer: NodeJS.Timeout | undefined;
  const started = new Promise<void>((resolve) =>
    socket.once('connect', () => {
      socket.write('GET /api/v1/auth/check HTTP/1.1\r\nHost: t\r\n', () => resolve());
      timer = setInterval(() => socket.write(`X-Line-${lines++}: x\r\n`), everyMs);
    }),
  );
  socket.on('data', (d) => (reply += d.toString('latin1')));
  socket.on('error', () => undefined); // the write after the server closed: ECONNRESET or EPIPE
  const closed = new Promise<{ reply: string }>((resolve) =>
    socket.once('close', () => {
      clearInterval(timer);
      resolve({ reply });
    }),
  );
  return { started, closed, destroy: () => socket.destroy() };
}

describe('createGatewayServer under a flood of clients that send their headers slowly', () => {
  it('closes every such connection after the headers timeout and serves a normal client meanwhile', async () => {
    const { app } = createGatewayApp(fakeGatewayDeps());
    const server = createGatewayServer(app, { requestTimeoutMs: 1000, headersTimeoutMs: 500 });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as AddressInfo;
    const slow = Array.from({ length: 200 }, () => trickler(port, 100));
    try {
      const started = Date.now();
      await Promise.all(slow.map((c) => c.started));
      const normal = await fetch(`http://127.0.0.1:${port}/api/v1/auth/check`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
      expect(normal.status).toBe(200);
      // Wait until every one is closed, or give up after 10 s and count those still open.
      let open = slow.length;
      const all = Promise.all(slow.map((c) => c.closed.finally(() => open--)));
      const deadline = new Promise<'deadline'>((r) => setTimeout(() => r('deadline'), 10_000).unref());
      const replies = await Promise.race([all, deadline]);
      expect({ stillOpen: open }).toEqual({ stillOpen: 0 });
      expect(Date.now() - started).toBeLessThan(5000); // headers timeout 0.5 s, checked every 0.125 s, 0.5 s to close
      for (const r of replies as Array<{ reply: string }>) expect(r.reply).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      for (const c of slow) c.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  }, 20_000);
});

describe('gateway config', () => {
  it('defaults the request and headers timeouts to 30 s and 10 s', () => {
    const c = loadGatewayConfig({});
    expect(c.HTTP_REQUEST_TIMEOUT_MS).toBe(30_000);
    expect(c.HTTP_HEADERS_TIMEOUT_MS).toBe(10_000);
  });
});

describe('GatewayServer.drain', () => {
  /** A server whose handler answers /slow only once release() is called. */
  async function start() {
    const app = new Koa();
    app.silent = true;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const slowArrived = new Promise<void>((r) => (arrived = r));
    app.use(async (ctx) => {
      if (ctx.path === '/slow') {
        arrived();
        await released;
      }
      ctx.body = `ok ${ctx.path}`;
    });
    const server = createGatewayServer(app, { requestTimeoutMs: 5000, headersTimeoutMs: 5000 });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    return { server, port: (server.address() as AddressInfo).port, release, slowArrived };
  }

  /** A raw keep-alive connection: send a request, read one response, see when the server closes it. */
  function connection(port: number) {
    const socket = net.connect(port, '127.0.0.1');
    let buf = '';
    let waiter: (() => void) | undefined;
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('data', (d) => {
      buf += d.toString('latin1');
      waiter?.();
    });
    socket.on('error', () => undefined);
    return {
      closed,
      isClosed: () => socket.destroyed,
      request: async (p: string): Promise<string> => {
        buf = '';
        socket.write(`GET ${p} HTTP/1.1\r\nHost: t\r\n\r\n`);
        // Each response here is small and has a Content-Length: whole once the body is in.
        for (;;) {
          const head = buf.indexOf('\r\n\r\n');
          const len = /content-length: (\d+)/i.exec(buf);
          if (head >= 0 && len && buf.length >= head + 4 + Number(len[1])) return buf;
          await new Promise<void>((r) => (waiter = r));
        }
      },
    };
  }

  it('answers a request in flight with Connection: close, closes idle keep-alive connections, and resolves once all are closed', async () => {
    const { server, port, release, slowArrived } = await start();
    const idle = connection(port);
    expect(await idle.request('/first')).toMatch(/^HTTP\/1\.1 200[\s\S]*Connection: keep-alive/i);
    const busy = connection(port);
    const slow = busy.request('/slow');
    await slowArrived;
    const drained = server.drain({ graceMs: 200, forceAfterMs: 10_000 });
    release();
    const answer = await slow;
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toMatch(/ok \/slow$/);
    await busy.closed; // the server ended the connection after that answer
    await idle.closed; // and closed the idle one after the grace
    expect(await drained).toMatchObject({ cut: 0 });
    expect(server.listening).toBe(false);
  });

  it('still answers, with Connection: close, a request that comes on a keep-alive connection during the grace', async () => {
    const { server, port } = await start();
    const c = connection(port);
    expect(await c.request('/a')).toMatch(/Connection: keep-alive/i);
    const drained = server.drain({ graceMs: 300, forceAfterMs: 10_000 });
    const answer = await c.request('/b');
    expect(answer).toMatch(/^HTTP\/1\.1 200[\s\S]*\r\nConnection: close\r\n[\s\S]*ok \/b$/i);
    await c.closed;
    expect(await drained).toMatchObject({ cut: 0 });
  });

  it('cuts a request that outlasts forceAfterMs and says so', async () => {
    const { server, port, slowArrived } = await start();
    const c = connection(port);
    void c.request('/slow').catch(() => undefined);
    await slowArrived;
    const drained = await server.drain({ graceMs: 0, forceAfterMs: 100 });
    expect(drained.cut).toBe(1);
    await c.closed;
  });
});
