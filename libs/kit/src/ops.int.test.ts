import { Registry, Counter } from 'prom-client';
import { silentLogger } from '@acct/testing';
import { startOpsServer } from './ops';

/** fetch's json() is typed unknown; these tests read known shapes. */
const json = (r: Response): Promise<any> => r.json();

describe('ops server', () => {
  it('serves healthz, readyz by its checks, metrics, and goes unready on shutdown', async () => {
    const registry = new Registry();
    new Counter({ name: 'things_total', help: 'x', registers: [registry] }).inc(3);
    let dbUp = true;
    const ops = await startOpsServer({ port: 0, host: '127.0.0.1', registry, log: silentLogger(), checks: { postgres: async () => dbUp, nats: async () => true } });
    const base = `http://127.0.0.1:${ops.port}`;
    try {
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      let r = await fetch(`${base}/readyz`);
      expect(r.status).toBe(200);
      expect(await json(r)).toEqual({ status: 'ready', checks: { postgres: 'ok', nats: 'ok' } });
      dbUp = false;
      r = await fetch(`${base}/readyz`);
      expect(r.status).toBe(503);
      expect((await json(r)).checks.postgres).toBe('failing');
      dbUp = true;
      ops.markShuttingDown();
      r = await fetch(`${base}/readyz`);
      expect(r.status).toBe(503);
      expect((await json(r)).status).toBe('shutting_down');
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect(await (await fetch(`${base}/metrics`)).text()).toContain('things_total 3');
    } finally {
      await ops.close();
    }
  });
});
