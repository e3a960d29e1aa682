import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '@acct/stack';
import { type E2E, bootstrapOrg, startE2E } from './harness';
import { E2E_ENV } from './receivables.helpers';

const run = promisify(execFile);
const SCRIPT = path.join(ROOT, 'docs', 'walkthrough.sh');

/** docs/walkthrough.sh (the README's walk-through) against a stack: exit code, stderr and stdout. */
async function walkthrough(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('bash', [SCRIPT], { env: { PATH: process.env.PATH ?? '', ...env }, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

/**
 * The README's walk-through is a script (docs/walkthrough.sh) that stops at the first failure; it
 * runs here against a stack of its own, so a change that breaks a step of it fails `npm test`.
 */
describe('e2e: docs/walkthrough.sh', () => {
  let e2e: E2E;
  let key: string;

  beforeAll(async () => {
    e2e = await startE2E(E2E_ENV);
    key = (await bootstrapOrg(e2e.databaseUrl, 'Walk-through org')).test_key;
  }, 180_000);
  afterAll(async () => {
    await e2e?.stop();
  });

  it('runs every step to the end against BASE with KEY, and again on the same organization', async () => {
    for (const RUN of ['first', 'second']) {
      const r = await walkthrough({ BASE: e2e.base, KEY: key, RUN });
      expect({ code: r.code, stderr: r.stderr.slice(-2000) }).toEqual({ code: 0, stderr: expect.stringContaining('== Done: every request answered 2xx') as unknown });
      expect(r.stdout).toContain('"status":"intact"');
    }
  });

  it('stops at the first failure with a non-zero status and the API error', async () => {
    const r = await walkthrough({ BASE: e2e.base, KEY: 'svc_test_not_a_key', RUN: 'bad' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('"code":"unauthorized"');
    expect(r.stderr).not.toContain('== Create a customer');
  });

  it('needs KEY, and says so', async () => {
    const r = await walkthrough({ BASE: e2e.base });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/KEY/);
  });
});
