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
}

/**
 * The gateway's HTTP server: a client that sends less body than its Content-Length (or its headers
 * slowly) holds a connection for requestTimeoutMs at most, not Node's default 300 s.
 */
export function createGatewayServer(app: Koa, t: ServerTimeouts): http.Server {
  const handler = app.callback();
  const headersTimeout = Math.min(t.headersTimeoutMs, t.requestTimeoutMs); // Node refuses headers > request
  const server = http.createServer(
    {
      requestTimeout: t.requestTimeoutMs,
      headersTimeout,
      connectionsCheckingInterval: Math.max(CHECK_EVERY_MS_MIN, Math.min(CHECK_EVERY_MS_MAX, Math.floor(headersTimeout / 4))),
    },
    // Koa's handler settles every request itself (errors go to ctx.onerror), so its promise is dropped.
    (req, res) => void handler(req, res),
  );
  server.keepAliveTimeout = 65_000; // longer than typical load balancer idle timeouts
  server.on('clientError', answerClientError);
  return server;
}
