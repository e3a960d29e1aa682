import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { STACK_RECORD_FILE, type StackRecord, dropDatabase, dropEventsStream } from '@acct/kit';
import { NATS_URL, PG_SERVER_URL, runAdminCli, uniqueName, uniquePrefix } from '@acct/testing';
import { ROOT } from './stack';

/**
 * Issue 42 §4: `npm start` records the stack it runs (.data/stack.json) and the admin CLI, run in
 * another shell without DATABASE_URL, issues keys that stack accepts; a clean stop removes the record.
 */
describe('npm start and the admin CLI in another shell', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-start-record-'));
  const prefix = uniquePrefix();
  const u = new URL(PG_SERVER_URL);
  u.pathname = `/${uniqueName('acct_start_record')}`;
  const databaseUrl = u.toString();
  let start: ChildProcess | undefined;
  let exited: Promise<number | null>;
  let output = '';

  beforeAll(async () => {
    start = spawn(process.execPath, [path.join(ROOT, 'tools/stack/dist/start.js')], {
      cwd: ROOT,
      env: { ...process.env, STACK_DATA_DIR: dir, DATABASE_URL: databaseUrl, NATS_URL, NATS_PREFIX: prefix, GATEWAY_PORT: '0', OPS_PORT_BASE: '0', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const child = start;
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    // Ready when it prints the gateway's URL (after the services are up).
    await new Promise<void>((resolve, reject) => {
      const onData = (b: Buffer) => {
        output += b.toString();
        if (output.includes('Accounting API listening on')) resolve();
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      void exited.then((code) => reject(new Error(`npm start exited with ${code} before it was ready:\n${output.slice(-3000)}`)));
    });
  }, 400_000);

  afterAll(async () => {
    if (start && start.exitCode === null && start.signalCode === null) {
      start.kill('SIGINT');
      await exited;
    }
    await dropDatabase(databaseUrl);
    await dropEventsStream(NATS_URL, prefix).catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('records its database, bus and gateway; a key from `admin bootstrap` without DATABASE_URL works on its gateway; Ctrl-C removes the record', async () => {
    const record = JSON.parse(fs.readFileSync(path.join(dir, STACK_RECORD_FILE), 'utf8')) as StackRecord;
    expect(record).toMatchObject({ pid: start!.pid, database_url: databaseUrl, nats_url: NATS_URL, nats_prefix: prefix, nats_admin_seed_file: null });

    const boot = await runAdminCli({ STACK_DATA_DIR: dir }, 'bootstrap', '--json');
    expect(boot.stderr).toContain(`using the stack npm start runs (pid ${start!.pid}`);
    expect(boot.code).toBe(0);
    const { test_key } = JSON.parse(boot.stdout) as { test_key: string };
    const res = await fetch(`${record.gateway_url}/api/v1/auth/check`, { headers: { authorization: `Bearer ${test_key}` } });
    expect(res.status).toBe(200);

    start!.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(fs.existsSync(path.join(dir, STACK_RECORD_FILE))).toBe(false);
  }, 120_000);
});
