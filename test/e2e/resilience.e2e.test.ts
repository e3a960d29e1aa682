import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '@acct/stack';
import { type E2E, type Keys, bootstrapOrg, client, startE2E } from './harness';

describe('e2e: limits, outages, shutdown and configuration', () => {
  let e2e: E2E;
  let keys: Keys;

  beforeAll(async () => {
    e2e = await startE2E({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '5' });
    keys = await bootstrapOrg(e2e.databaseUrl);
  });
  afterAll(async () => e2e?.stop());

  it('exhausts the rate limit: 429 rate_limited with Retry-After', async () => {
    const api = client(e2e.base, keys.live_key);
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 7; i++) {
      last = await api('GET', '/api/v1/auth/check');
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses[6]).toBe(429);
    expect(last?.json.error.code).toBe('rate_limited');
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last?.headers.get('ratelimit-limit')).toBe('5');
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
