import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from './logger';

export type ReadinessCheck = () => Promise<boolean>;

const CHECK_TIMEOUT_MS = 2000;

export interface OpsServer {
  port: number;
  /** From now on /readyz answers 503 so load balancers stop sending work. */
  markShuttingDown(): void;
  close(): Promise<void>;
}

async function runCheck(check: ReadinessCheck): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check().catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** /metrics, /healthz (alive) and /readyz (every dependency reachable) on their own port. */
export async function startOpsServer(opts: { port: number; registry: Registry; checks: Record<string, ReadinessCheck>; log: Logger; host?: string }): Promise<OpsServer> {
  let shuttingDown = false;
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    try {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/healthz') return send(200, { status: 'ok' });
      if (path === '/readyz') {
        const entries = Object.entries(opts.checks);
        const results = await Promise.all(entries.map(([, check]) => runCheck(check)));
        const checks = Object.fromEntries(entries.map(([n], i) => [n, results[i] ? 'ok' : 'failing']));
        const ready = !shuttingDown && results.every(Boolean);
        return send(ready ? 200 : 503, { status: ready ? 'ready' : shuttingDown ? 'shutting_down' : 'not_ready', checks });
      }
      if (path === '/metrics') return send(200, await opts.registry.metrics(), opts.registry.contentType);
      return send(404, { error: 'not found' });
    } catch (err) {
      opts.log.error({ err }, 'ops request failed');
      return send(500, { error: 'internal' });
    }
  };
  // Node ignores a listener's promise; handle() answers its own errors with a 500.
  const server = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    markShuttingDown: () => {
      shuttingDown = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What a service process tells the process that started it (`npm start`, the tests) over IPC. */
export interface ListeningReport {
  acctListening: 'ops' | 'http';
  port: number;
}

/**
 * Tells the parent process, when there is one with an IPC channel (tools/stack starts every
 * service so), which port a listener bound: with OPS_PORT=0 or GATEWAY_PORT=0 the system picks a
 * free one, and only this process knows which. Without a channel (Docker, Kubernetes) nothing happens.
 */
export function reportListening(what: ListeningReport['acctListening'], port: number): void {
  if (!process.send || !process.connected) return;
  const report: ListeningReport = { acctListening: what, port };
  // A parent that went away is not this process's problem: the callback swallows the error.
  process.send(report, undefined, {}, () => undefined);
}
