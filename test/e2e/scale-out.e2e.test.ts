import os from 'node:os';
import path from 'node:path';
import { SERVICE_MANIFEST } from '@acct/contracts';
import { dropDatabase, dropEventsStream } from '@acct/kit';
import { startStack, type Stack } from '@acct/stack';
import { NATS_URL, PG_SERVER_URL, uniqueName, uniquePrefix } from '@acct/testing';
import { bootstrapOrg } from './harness';

/**
 * Two processes of every service and two gateways (behind the stack's round-robin balancer): one
 * rate-limit budget per key across both gateways, and writes through either land once.
 */
describe('e2e: two replicas of everything', () => {
  const RATE = 10;
  const BURST = 2;
  let stack: Stack;
  let databaseUrl: string;
  const prefix = uniquePrefix();

  beforeAll(async () => {
    const u = new URL(PG_SERVER_URL);
    u.pathname = `/${uniqueName('acct_e2e_replicas')}`;
    databaseUrl = u.toString();
    stack = await startStack({
      databaseUrl,
      natsUrl: NATS_URL,
      natsPrefix: prefix,
      gatewayPort: 0,
      logs: { dir: path.join(os.tmpdir(), uniqueName('acct_e2e_replicas')) },
      replicas: 2,
      env: { RATE_LIMIT_RPS: String(RATE), RATE_LIMIT_BURST: String(BURST), RATE_LIMIT_SYNC_MS: '100' },
    });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    await dropDatabase(databaseUrl);
    await dropEventsStream(NATS_URL, prefix);
  }, 120_000);

  it('runs two of each service and two gateways', () => {
    expect(stack.gatewayUrls()).toHaveLength(2);
    expect(stack.services.size).toBe(2 * SERVICE_MANIFEST.length);
  });

  it('a key limited to 10/s gets about 10/s in total across both gateways, not 20/s', async () => {
    const keys = await bootstrapOrg(databaseUrl, 'Replicas');
    const [a, b] = stack.gatewayUrls();
    const ok = { a: 0, b: 0 };
    let limited = 0;
    const started = Date.now();
    const until = started + 6000;
    const worker = async (base: string, side: 'a' | 'b') => {
      while (Date.now() < until) {
        const r = await fetch(`${base}/api/v1/auth/check`, { headers: { authorization: `Bearer ${keys.test_key}` } });
        await r.arrayBuffer();
        if (r.status === 200) ok[side]++;
        else if (r.status === 429) limited++;
        else throw new Error(`unexpected ${r.status}`);
      }
    };
    await Promise.all([worker(a!, 'a'), worker(a!, 'a'), worker(b!, 'b'), worker(b!, 'b')]);
    const seconds = (Date.now() - started) / 1000;
    const allowed = ok.a + ok.b;
    // One shared bucket: rate × time + burst, plus at most 2 × burst per replica of sync slack
    // (README); two separate buckets would allow 2 × (rate × time + burst).
    expect(allowed).toBeLessThanOrEqual(Math.ceil(RATE * seconds + BURST + 2 * BURST * 2));
    expect(ok.a).toBeGreaterThan(0);
    expect(ok.b).toBeGreaterThan(0);
    expect(limited).toBeGreaterThan(0);
  }, 60_000);
});
