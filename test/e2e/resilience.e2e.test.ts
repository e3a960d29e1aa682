import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '@acct/stack';
import { type E2E, type Keys, bootstrapOrg, client, startE2E } from './harness';

describe('e2e: limits, outages, shutdown and configuration', () => {
  let e2e: E2E;
  let keys: Keys;

  const RATE = 1;
  const BURST = 5;

  beforeAll(async () => {
    e2e = await startE2E({ RATE_LIMIT_RPS: String(RATE), RATE_LIMIT_BURST: String(BURST) });
    keys = await bootstrapOrg(e2e.databaseUrl);
  });
  afterAll(async () => e2e?.stop());

  it('exhausts the rate limit: 429 rate_limited with Retry-After', async () => {
    const api = client(e2e.base, keys.live_key);
    // One gateway refuses once its burst is spent. With replicas (E2E_CLUSTER=1) each decides from
    // its own view between two syncs of the shared bucket, so together they may overdraw by up to
    // (replicas − 1) × burst before the first 429 (README: "Rate limits are per key").
    const replicas = e2e.stack.gatewayUrls().length;
    const statuses: number[] = [];
    const started = Date.now();
    let last;
    while (statuses.length < 50 && statuses.at(-1) !== 429) {
      last = await api('GET', '/api/v1/auth/check');
      statuses.push(last.status);
    }
    const refilled = Math.ceil((RATE * (Date.now() - started)) / 1000);
    expect(statuses.slice(0, BURST)).toEqual(Array<number>(BURST).fill(200));
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(BURST * replicas + refilled);
    expect(last?.json.error.code).toBe('rate_limited');
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last?.headers.get('ratelimit-limit')).toBe(String(BURST));
  });

  it('answers 503 service_unavailable (not a hang) while receivables is down, then recovers', async () => {
    const api = client(e2e.base, keys.test_key);
    // SIGTERM is a graceful stop: the process drains and exits 0.
    expect(await e2e.stack.stopService('receivables')).toBe(0);
    const down = await api('GET', '/api/v1/customers');
    expect(down.status).toBe(503);
    expect(down.json.error.code).toBe('service_unavailable');
    expect(down.headers.get('retry-after')).toBeTruthy();
    await e2e.stack.startService('receivables');
    expect((await api('GET', '/api/v1/customers')).status).toBe(200);
  });

  it('stops a service that is given a bad variable, naming the variable', async () => {
    const child = spawn(process.execPath, [path.join(ROOT, 'services/gateway/dist/main.js')], {
      env: { ...process.env, GATEWAY_PORT: 'eighty', RATE_LIMIT_RPS: '-3', DATABASE_URL: e2e.databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(2);
    expect(stderr).toContain('GATEWAY_PORT');
    expect(stderr).toContain('RATE_LIMIT_RPS');
  });
});
