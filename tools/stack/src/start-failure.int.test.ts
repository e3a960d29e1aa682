import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropDatabase, dropEventsStream } from '@acct/kit';
import { NATS_URL, PG_SERVER_URL, uniqueName, uniquePrefix } from '@acct/testing';
import { startStack } from './stack';

/**
 * A service that exits before it is ready fails startStack with the reason from its own log: a CI
 * run keeps only its output, not the stack's log folder.
 */
describe('stack: a service that cannot start', () => {
  const dir = path.join(os.tmpdir(), uniqueName('acct_startfail'));
  const prefix = uniquePrefix();
  const u = new URL(PG_SERVER_URL);
  u.pathname = `/${uniqueName('acct_startfail')}`;
  const databaseUrl = u.toString();

  afterAll(async () => {
    await dropDatabase(databaseUrl);
    await dropEventsStream(NATS_URL, prefix).catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('fails with the last lines of its log', async () => {
    const err = await startStack({
      databaseUrl,
      natsUrl: NATS_URL,
      natsPrefix: prefix,
      gatewayPort: 0,
      logs: { dir },
      // Out of its range (100..60000): the dispatcher refuses its configuration and exits 2.
      env: { WEBHOOK_TIMEOUT_MS: '5' },
      log: () => undefined,
      readyTimeoutMs: 120_000,
    }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(/^webhook-dispatcher exited with code 2 before it was ready; the last lines of .*webhook-dispatcher\.log:\n/);
    expect(err!.message).toContain('WEBHOOK_TIMEOUT_MS');
    const logged = fs.readFileSync(path.join(dir, 'webhook-dispatcher.log'), 'utf8');
    expect(logged).toContain('WEBHOOK_TIMEOUT_MS');
  }, 180_000);
});
