import http from 'node:http';
import { SERVICE_MANIFEST } from '@acct/contracts';
import { waitFor } from '@acct/testing';
import { type E2E, bootstrapOrg, startE2E } from './harness';

/**
 * A rolling restart, as Kubernetes does one: each process of every service in turn, gateways first,
 * gets SIGTERM, exits, and is started again, while keep-alive clients keep reading through the
 * round-robin balancer with no retries at all. Not one request may fail (a network error or a
 * non-2xx), every process must exit 0 (a drain that ran into SHUTDOWN_TIMEOUT_MS exits 1), and the
 * exit times are reported. Needs two replicas of everything: `npm run test:cluster` (E2E_CLUSTER=1).
 */
const maybe = process.env.E2E_CLUSTER === '1' ? describe : describe.skip;
const CLIENTS = 6;
/** Requests answered between two restarts: the system serves again before the next one. */
const BETWEEN = 30;

maybe('e2e cluster: rolling SIGTERM of every replica under keep-alive load', () => {
  let e2e: E2E;
  let key: string;

  beforeAll(async () => {
    // No rate limit in the way: every answer but a 200 counts as a failure here.
    e2e = await startE2E({ RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000', RATE_LIMIT_CLIENT_RPS: '100000', RATE_LIMIT_CLIENT_BURST: '100000' });
    key = (await bootstrapOrg(e2e.databaseUrl, 'Rolling')).test_key;
  }, 400_000);
  afterAll(() => e2e?.stop(), 120_000);

  it('fails no request and every process exits 0 soon after SIGTERM', async () => {
    const base = new URL(e2e.stack.gatewayUrl);
    const paths = ['/api/v1/customers', '/api/v1/vendors'];
    let answered = 0;
    let closes = 0;
    const failures: string[] = [];
    let running = true;
    const get = (agent: http.Agent, p: string) =>
      new Promise<{ status: number; close: boolean }>((resolve, reject) => {
        const req = http.get({ host: base.hostname, port: base.port, path: p, agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
          res.resume();
          res.once('end', () => resolve({ status: res.statusCode!, close: res.headers.connection === 'close' }));
          res.once('error', reject);
        });
        req.once('error', reject);
      });
    // Each client: a keep-alive connection of its own (a new one only after a Connection: close).
    const client = async (n: number) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = n; running; i++) {
        const p = paths[i % paths.length]!;
        try {
          const r = await get(agent, p);
          if (r.status !== 200) failures.push(`${p}: ${r.status}`);
          else answered++;
          if (r.close) closes++;
        } catch (e) {
          failures.push(`${p}: ${String(e)}`);
        }
      }
      agent.destroy();
    };
    const load = Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
    const exits: { instance: string; code: number | null; exitMs: number }[] = [];
    try {
      await waitFor(() => Promise.resolve(answered >= BETWEEN), 60_000, 50);
      const order = [...SERVICE_MANIFEST.filter((d) => d.public), ...SERVICE_MANIFEST.filter((d) => !d.public)];
      for (const def of order) {
        for (const replica of [0, 1]) {
          const t0 = Date.now();
          const code = await e2e.stack.stopReplica(def.name, replica);
          exits.push({ instance: replica ? `${def.name}#${replica}` : def.name, code, exitMs: Date.now() - t0 });
          await e2e.stack.startReplica(def.name, replica);
          const from = answered;
          await waitFor(() => Promise.resolve(answered >= from + BETWEEN), 60_000, 50);
        }
      }
    } finally {
      running = false;
      await load;
    }
    process.stderr.write(
      `\nRolling restart: ${answered} requests answered, ${failures.length} failed, ${closes} answered with Connection: close\n` +
        exits.map((x) => `  ${x.instance.padEnd(22)} exit ${x.code} after ${x.exitMs} ms`).join('\n') +
        '\n',
    );
    expect(failures).toEqual([]);
    expect(exits).toHaveLength(2 * SERVICE_MANIFEST.length);
    expect(exits.filter((x) => x.code !== 0)).toEqual([]);
    // The gateways' keep-alive clients were told to go elsewhere, not cut off.
    expect(closes).toBeGreaterThan(0);
  }, 600_000);
});
