import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { NATS_URL, freshDatabase, type TestDatabase, uniquePrefix, waitFor } from '@acct/testing';

/**
 * The gateway process on SIGTERM (dist/main.js, as deployed; `npm test` builds first): /readyz goes
 * 503 at once, keep-alive clients that keep sending lose no request (each gets an answer, the last
 * on each connection with `Connection: close`), an idle keep-alive connection is closed, and the
 * process exits 0 on its own well before SHUTDOWN_TIMEOUT_MS (an exit on the timeout is code 1).
 */
const DIST = path.resolve(__dirname, '..', 'dist');
const SHUTDOWN_TIMEOUT_MS = 20_000;

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('gateway process: drains on SIGTERM', () => {
  let db: TestDatabase;
  let child: ChildProcess | undefined;
  let log = '';
  const ports: { http?: number; ops?: number } = {};

  beforeAll(async () => {
    db = await freshDatabase('acct_gw_drain');
    const env = {
      ...process.env,
      DATABASE_URL: db.url,
      NATS_URL,
      NATS_PREFIX: uniquePrefix(),
      GATEWAY_PORT: '0',
      OPS_PORT: '0',
      HTTP_DRAIN_GRACE_MS: '500',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      RATE_LIMIT_CLIENT_RPS: '100000',
      RATE_LIMIT_CLIENT_BURST: '100000',
      LOG_LEVEL: 'info',
    };
    const migrate = spawn(process.execPath, [path.join(DIST, 'migrate.js')], { env, stdio: 'ignore' });
    expect((await exitOf(migrate)).code).toBe(0);
    child = spawn(process.execPath, [path.join(DIST, 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    child.on('message', (m: { acctListening?: 'http' | 'ops'; port?: number }) => {
      if (m.acctListening && typeof m.port === 'number') ports[m.acctListening] = m.port;
    });
    await waitFor(
      async () =>
        ports.ops !== undefined &&
        (await fetch(`http://127.0.0.1:${ports.ops}/readyz`).then(
          (r) => r.status === 200,
          () => false,
        )),
      30_000,
      100,
    );
  }, 60_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await db?.drop();
  });

  it('answers every request of keep-alive clients, closes idle connections and exits 0 well before the timeout', async () => {
    // Each worker: one keep-alive connection of its own, one request after the other, no retries.
    const get = (agent: http.Agent) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port: ports.http, path: '/api/v1/auth/check', agent }, (res) => {
          res.resume();
          res.once('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
        });
        req.once('error', reject);
      });
    const agents = Array.from({ length: 4 }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    let answered = 0;
    let closeAnswers = 0;
    const failures: string[] = [];
    const worker = async (agent: http.Agent) => {
      // Until the port is closed: a request that finds it refused was never sent to this gateway.
      for (;;) {
        try {
          const r = await get(agent);
          answered++;
          if (r.connection === 'close') {
            closeAnswers++;
            return; // this client would now open a connection elsewhere
          }
        } catch (e) {
          failures.push(String(e));
          return;
        }
      }
    };
    // An idle keep-alive connection, opened before SIGTERM and never used again.
    const idleAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    await get(idleAgent);
    const idleSocket = Object.values(idleAgent.freeSockets).flat()[0]!;
    const idleClosed = new Promise<void>((r) => idleSocket.once('close', () => r()));
    const load = Promise.all(agents.map(worker));
    await waitFor(() => Promise.resolve(answered >= 40), 20_000, 20);

    const exit = exitOf(child!);
    const t0 = Date.now();
    child!.kill('SIGTERM');
    await waitFor(
      async () =>
        (await fetch(`http://127.0.0.1:${ports.ops}/readyz`).then(
          (r) => r.status,
          () => 0,
        )) === 503,
      5000,
      20,
    );
    await load;
    await idleClosed;
    const { code } = await exit;
    const exitMs = Date.now() - t0;
    process.stderr.write(`gateway drain: ${answered} answered, ${closeAnswers} with Connection: close, exit ${code} after ${exitMs} ms\n`);

    expect(failures).toEqual([]);
    expect(closeAnswers).toBe(agents.length);
    expect(code).toBe(0);
    expect(exitMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    expect(log).toMatch(/"msg":"http drained"/);
    expect(log).not.toMatch(/shutdown timed out/);
    for (const a of [...agents, idleAgent]) a.destroy();
  }, 60_000);
});
