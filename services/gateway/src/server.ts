import http from 'node:http';
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
  return server;
}
