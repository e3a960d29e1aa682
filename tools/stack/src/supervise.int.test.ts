import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropDatabase, dropEventsStream } from '@acct/kit';
import { NATS_URL, PG_SERVER_URL, uniqueName, uniquePrefix, waitFor } from '@acct/testing';
import { bootstrapDevKey } from './seed';
import { type Stack, startStack } from './stack';

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The stack tool as `npm start` runs it (supervise: true): a service killed with kill -9 is logged,
 * started again and serves; a replica is stopped and started on its own; stop() leaves no process
 * behind, restarted ones included.
 */
describe('stack: supervision and stop()', () => {
  let stack: Stack | undefined;
  let databaseUrl: string;
  const prefix = uniquePrefix();
  const lines: string[] = [];
  const dir = path.join(os.tmpdir(), uniqueName('acct_supervise'));
  /** Every pid the stack ever ran. */
  const pids = new Set<number>();
  const remember = () => {
    for (const s of stack!.services.values()) pids.add(s.child.pid!);
  };
  let key: string;

  beforeAll(async () => {
    const u = new URL(PG_SERVER_URL);
    u.pathname = `/${uniqueName('acct_supervise')}`;
    databaseUrl = u.toString();
    stack = await startStack({
      databaseUrl,
      natsUrl: NATS_URL,
      natsPrefix: prefix,
      gatewayPort: 0,
      logs: { dir },
      supervise: { minDelayMs: 100, maxDelayMs: 1000 },
      log: (line) => lines.push(line),
      readyTimeoutMs: 120_000,
    });
    remember();
    key = (await bootstrapDevKey(databaseUrl)).test_key;
  }, 400_000);
  afterAll(async () => {
    await stack?.stop();
    await dropDatabase(databaseUrl);
    await dropEventsStream(NATS_URL, prefix).catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  const customers = () => fetch(`${stack!.gatewayUrl}/api/v1/customers`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);

  it.each(['receivables', 'gateway'])(
    'restarts %s after kill -9, logs it, counts it, and it serves again',
    async (name) => {
      expect(await customers()).toBe(200);
      const before = stack!.services.get(name)!;
      process.kill(before.child.pid!, 'SIGKILL');
      const back = await waitFor(
        () => {
          const s = stack!.services.get(name);
          return Promise.resolve(s && s !== before && s.readyAt > 0 ? s : undefined);
        },
        60_000,
        50,
      );
      remember();
      expect(back.restarts).toBe(1);
      expect(back.child.pid).not.toBe(before.child.pid);
      expect(lines).toContainEqual(`${name} (pid ${before.child.pid}) exited (signal SIGKILL); restart 1 in 100 ms`);
      await waitFor(() => Promise.resolve(lines.some((l) => l.startsWith(`${name} is back (pid ${back.child.pid}, restart 1)`))), 10_000, 20);
      expect(stack!.status()).toContain(`${name} up (1 restart)`);
      // The gateway comes back on the same public port.
      await waitFor(async () => (await customers().catch(() => 0)) === 200, 30_000, 100);
    },
    90_000,
  );

  it('stops and starts one replica on its own, without the supervisor restarting it', async () => {
    const before = stack!.services.get('payables')!;
    expect(await stack!.stopReplica('payables', 0)).toBe(0); // SIGTERM: drained, exit 0
    expect(pidAlive(before.child.pid!)).toBe(false);
    expect(stack!.services.has('payables')).toBe(false);
    expect(lines.filter((l) => l.startsWith('payables'))).toEqual([]);
    await expect(stack!.stopReplica('payables', 1)).rejects.toThrow('payables has replicas 0..0, not 1');
    await stack!.startReplica('payables', 0);
    // Starting it again while it runs starts no second process (which nothing would stop).
    const running = stack!.services.get('payables')!;
    await stack!.startReplica('payables', 0);
    expect(stack!.services.get('payables')).toBe(running);
    remember();
  }, 90_000);

  it('stop() leaves no process behind, restarted ones included', async () => {
    expect(pids.size).toBeGreaterThan(stack!.services.size);
    expect([...pids].filter(pidAlive)).toHaveLength(stack!.services.size);
    await stack!.stop();
    expect([...pids].filter(pidAlive)).toEqual([]);
    stack = undefined;
  }, 90_000);
});
