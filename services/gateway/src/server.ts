import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';

export interface ServerTimeouts {
  /** The whole request, headers and body, must arrive within this (408 and close otherwise). */
  requestTimeoutMs: number;
  /** The headers must arrive within this. */
  headersTimeoutMs: number;
}

/** Node checks the timeouts above only this often (its default, 30 s, would let them overrun that much). */
const CHECK_EVERY_MS_MAX = 1000;
const CHECK_EVERY_MS_MIN = 50;
/** How long a client refused before the app ran has to read the answer and close before it is cut. */
const CLOSE_AFTER_ANSWER_MS = 500;

/**
 * What Node refuses before the app runs (a head over the size limit, bytes that are not HTTP, a
 * request that did not arrive in time) still gets the error envelope with a request id, not a bare
 * status line.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, `The request line and headers are over the ${http.maxHeaderSize}-byte limit.`]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request did not arrive in time.']
        : [400, 'The request is not valid HTTP.'];
  const requestId = randomUUID();
  const body = JSON.stringify({ error: { code: 'validation_failed', message, details: [], request_id: requestId } });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
  // Node's HTTP sockets allow half-open connections: end() only closes our side, and a client that
  // never closes its own (a slow loris sending a header line every few seconds) would hold the
  // connection for good. It gets a moment to read the answer and close; then the socket is cut.
  const cut = setTimeout(() => socket.destroy(), CLOSE_AFTER_ANSWER_MS);
  socket.once('close', () => clearTimeout(cut));
}

export interface DrainOptions {
  /**
   * After SIGTERM the server keeps listening this long, answering every request with
   * `Connection: close`: a load balancer that polls /readyz (already 503) stops sending new
   * connections, and a keep-alive client sends at most one more request on each connection, then
   * opens a new one elsewhere.
   */
  graceMs: number;
  /** Connections still open this long after the grace (a request still running) are cut. */
  forceAfterMs: number;
}

export interface DrainResult {
  /** Connections cut at forceAfterMs because a request was still running on them. */
  cut: number;
  ms: number;
}

export interface GatewayServer extends http.Server {
  /**
   * Stops the server without failing a request: from now on every response says `Connection:
   * close` (those in flight that have not answered yet included); after the grace it stops
   * listening and closes idle keep-alive connections; it resolves once every connection is closed.
   */
  drain(o: DrainOptions): Promise<DrainResult>;
}

/**
 * The gateway's HTTP server: a client that sends less body than its Content-Length (or its headers
 * slowly) holds a connection for requestTimeoutMs at most, not Node's default 300 s.
 */
export function createGatewayServer(app: Koa, t: ServerTimeouts): GatewayServer {
  const handler = app.callback();
  const headersTimeout = Math.min(t.headersTimeoutMs, t.requestTimeoutMs); // Node refuses headers > request
  let draining = false;
  /** Responses not yet finished, so that draining can mark those that have not answered yet. */
  const inFlight = new Set<http.ServerResponse>();
  const server = http.createServer(
    {
      requestTimeout: t.requestTimeoutMs,
      headersTimeout,
      connectionsCheckingInterval: Math.max(CHECK_EVERY_MS_MIN, Math.min(CHECK_EVERY_MS_MAX, Math.floor(headersTimeout / 4))),
    },
    (req, res) => {
      // Node then writes `Connection: close` and ends the socket once the response is sent; set
      // here, not as a header, since Koa drops the headers of an error it answers itself.
      if (draining) res.shouldKeepAlive = false;
      inFlight.add(res);
      res.once('close', () => inFlight.delete(res));
      // Koa's handler settles every request itself (errors go to ctx.onerror), so its promise is dropped.
      void handler(req, res);
    },
  ) as GatewayServer;
  server.keepAliveTimeout = 65_000; // longer than typical load balancer idle timeouts
  server.on('clientError', answerClientError);
  server.drain = async (o) => {
    const started = Date.now();
    draining = true;
    for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
    await new Promise((r) => setTimeout(r, o.graceMs));
    // A response that was already under way when draining began leaves its connection idle: closed here.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    let cut = 0;
    const force = setTimeout(() => {
      cut = inFlight.size;
      server.closeAllConnections();
    }, o.forceAfterMs);
    // Responses still running end their connection when sent (shouldKeepAlive above).
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    try {
      await closed;
    } finally {
      clearTimeout(force);
      clearInterval(idle);
    }
    return { cut, ms: Date.now() - started };
  };
  return server;
}
