import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONSUMERS, type BusPrincipal, type ParkedEventsReply, parkedEventsSubject, postingSubject } from '@acct/contracts';
import { databaseExists, decodeJson, dropDatabase, encodeJson, ensureEventsStream, natsAuthOptions, writeStackRecord } from '@acct/kit';
import type { OwnNatsServer } from '@acct/stack';
import {
  PG_SERVER_URL,
  type TestDatabase,
  type TestService,
  freshDatabase,
  runAdminCli,
  serviceDefinition,
  startNatsWithUsers,
  startServiceForTest,
  uniqueName,
  uniquePrefix,
  waitFor,
} from '@acct/testing';
import { type NatsConnection, connect } from 'nats';
import { Client } from 'pg';
import { hashKey } from '../keys';

/** `.data` of an npm start that runs (this test process stands for it: its pid runs). */
function recordStack(dir: string, over: { databaseUrl?: string; natsUrl?: string; prefix?: string; seedFile?: string | null }): void {
  writeStackRecord(dir, {
    pid: process.pid,
    started_at: new Date().toISOString(),
    database_url: over.databaseUrl ?? 'postgres://postgres@127.0.0.1:1/unused',
    nats_url: over.natsUrl ?? 'nats://127.0.0.1:1',
    nats_prefix: over.prefix ?? 'unused',
    nats_admin_seed_file: over.seedFile ?? null,
    gateway_url: 'http://127.0.0.1:1',
  });
}

/**
 * Issue 42 §4: on a bus with users (the chart's default, and npm start's own nats-server) every
 * admin command that talks to NATS connects as the `admin` user; `events parked ...` did not.
 * (`reporting rebuild`, through the same connectAdminBus: test/e2e/bus-auth.e2e.test.ts.)
 */
describe('admin CLI over a NATS with users', () => {
  const prefix = uniquePrefix();
  let dir: string;
  let server: OwnNatsServer;
  let seeds: Record<BusPrincipal, string>;
  let rep: TestService;
  const conns: NatsConnection[] = [];
  const as = async (p: BusPrincipal) => {
    const nc = await connect({ servers: server.url, name: p, ...natsAuthOptions({ NATS_NKEY_SEED: seeds[p] }, p) });
    conns.push(nc);
    return nc;
  };

  beforeAll(async () => {
    ({ dir, server, seeds } = await startNatsWithUsers(prefix, 'acct-admin-cli-'));
    await ensureEventsStream(await as('payables'), prefix);
    rep = await startServiceForTest(serviceDefinition('reporting'), { nc: await as('reporting'), prefix, workers: true, poolMax: 3 });
  }, 60_000);

  afterAll(async () => {
    await rep?.stop();
    await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
    await server?.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists, shows, retries and discards a parked message as admin; refused without the credentials', async () => {
    // Bytes no outbox would publish: reporting parks them as malformed.
    await (await as('payables')).jetstream().publish(postingSubject(prefix, 'payables'), new TextEncoder().encode('not json'), { msgID: randomUUID() });
    const admin = await as('admin');
    const listed = () => admin.request(parkedEventsSubject(prefix, CONSUMERS.reportingPostings), encodeJson({ action: 'list' }), { timeout: 10_000 });
    await waitFor(async () => (decodeJson<ParkedEventsReply>((await listed()).data) as { events?: unknown[] }).events?.length === 1, 30_000);

    const bus = { NATS_URL: server.url, NATS_PREFIX: prefix };
    const anonymous = await runAdminCli(bus, 'events', 'parked', 'list', '--consumer', CONSUMERS.reportingPostings);
    expect(anonymous).toMatchObject({ code: 1, stderr: expect.stringMatching(/cannot connect to NATS .* without credentials.*Authorization Violation/i) });

    const env = { ...bus, NATS_NKEY_SEED: seeds.admin };
    const list = await runAdminCli(env, 'events', 'parked', 'list', '--consumer', CONSUMERS.reportingPostings, '--json');
    expect(list.code).toBe(0);
    const [parked] = JSON.parse(list.stdout) as { id: string; reason: string }[];
    expect(parked).toMatchObject({ id: expect.stringMatching(new RegExp(`^${CONSUMERS.reportingPostings}/\\d+$`)), reason: 'malformed' });
    expect(JSON.parse((await runAdminCli(env, 'events', 'parked', 'show', parked!.id)).stdout)).toMatchObject({ id: parked!.id, raw_text: 'not json' });
    // Answered (still malformed: stays parked), not refused by the server.
    const retry = await runAdminCli(env, 'events', 'parked', 'retry', parked!.id);
    expect(retry.code).toBe(1);
    expect(retry.stderr).toMatch(/^error: still malformed/m);
    expect(JSON.parse((await runAdminCli(env, 'events', 'parked', 'discard', parked!.id)).stdout)).toMatchObject({ id: parked!.id, discarded_at: expect.any(String) });
  }, 120_000);

  it('takes the bus, prefix and admin seed of the stack npm start runs when NATS_URL is not set', async () => {
    const seedFile = path.join(dir, 'admin.nkey');
    fs.writeFileSync(seedFile, `${seeds.admin}\n`, { mode: 0o600 });
    recordStack(dir, { natsUrl: server.url, prefix, seedFile });
    const r = await runAdminCli({ STACK_DATA_DIR: dir }, 'events', 'parked', 'list', '--consumer', CONSUMERS.reportingPostings, '--all', '--json');
    expect(r.stderr).toContain(`admin: using the stack npm start runs (pid ${process.pid}`);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([expect.objectContaining({ consumer: CONSUMERS.reportingPostings, reason: 'malformed' })]);
  }, 60_000);
});

/**
 * Issue 42 §4: `bootstrap` without DATABASE_URL made a database `accounting` of its own and printed a
 * key the running stack rejected. It acts on the stack npm start records, and creates a database
 * only when asked.
 */
describe('admin CLI bootstrap and the stack npm start runs', () => {
  let dir: string;
  let stackDb: TestDatabase;
  const missingUrl = (() => {
    const u = new URL(PG_SERVER_URL);
    u.pathname = `/${uniqueName('acct_admin_missing')}`;
    return u.toString();
  })();

  /** The API key's row in the gateway's schema of `url`: what the gateway authenticates it against. */
  const keyRow = async (url: string, key: string) => {
    const c = new Client({ connectionString: url });
    await c.connect();
    try {
      const r = await c.query(
        'SELECT k.environment, o.name FROM gateway.api_keys k JOIN gateway.organizations o ON o.id = k.organization_id WHERE k.key_hash = $1 AND k.revoked_at IS NULL',
        [hashKey(key)],
      );
      return r.rows[0] as { environment: string; name: string } | undefined;
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-admin-boot-'));
    // The stack's database, as npm start leaves it (created, before the CLI ever runs).
    stackDb = await freshDatabase('acct_admin_stack');
  });

  afterAll(async () => {
    await stackDb?.drop();
    await dropDatabase(missingUrl);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("issues keys in the recorded stack's database when DATABASE_URL is not set, and says which", async () => {
    recordStack(dir, { databaseUrl: stackDb.url });
    const r = await runAdminCli({ STACK_DATA_DIR: dir }, 'bootstrap', '--json', '--name', 'Recorded stack org');
    expect(r.stderr).toContain(`using the stack npm start runs (pid ${process.pid}`);
    expect(r.code).toBe(0);
    const b = JSON.parse(r.stdout) as { test_key: string; live_key: string };
    expect(await keyRow(stackDb.url, b.test_key)).toEqual({ environment: 'test', name: 'Recorded stack org' });
    expect(await keyRow(stackDb.url, b.live_key)).toEqual({ environment: 'live', name: 'Recorded stack org' });
  }, 60_000);

  it('refuses a database that does not exist, with a message and exit 1, and creates it with --create-database', async () => {
    recordStack(dir, { databaseUrl: missingUrl });
    const refused = await runAdminCli({ STACK_DATA_DIR: dir }, 'bootstrap', '--json');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/error: database "acct_admin_missing_\w+" does not exist at .*; --create-database creates it/);
    expect(await databaseExists(missingUrl)).toBe(false);
    // The same with DATABASE_URL given.
    expect((await runAdminCli({ DATABASE_URL: missingUrl }, 'create-org', '--name', 'x')).code).toBe(1);
    expect(await databaseExists(missingUrl)).toBe(false);

    const created = await runAdminCli({ STACK_DATA_DIR: dir }, 'bootstrap', '--json', '--create-database');
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/created database "acct_admin_missing_\w+"/);
    expect(await keyRow(missingUrl, (JSON.parse(created.stdout) as { test_key: string }).test_key)).toMatchObject({ environment: 'test' });
  }, 60_000);
});

/**
 * API-DECISIONS §13 "Keys": the CLI's key commands are the dashboard's operations (dashboard/keys.ts),
 * audited with the actor admin-cli; roll-key makes a new key and lets the current one expire.
 */
describe('admin CLI key commands', () => {
  let db: TestDatabase;
  const cli = (...args: string[]) => runAdminCli({ DATABASE_URL: db.url }, ...args);
  const out = async (...args: string[]) => {
    const r = await cli(...args);
    expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: expect.any(String) });
    return JSON.parse(r.stdout);
  };

  beforeAll(async () => {
    db = await freshDatabase('acct_admin_keys');
  });
  afterAll(() => db?.drop());

  it('creates, rolls, lists and revokes keys, each audited as admin-cli', async () => {
    const org = await out('create-org', '--name', 'CLI keys org');
    const app = await out('create-app', '--org', org.id, '--name', 'CLI keys app');
    const made = await out('create-key', '--app', app.id, '--env', 'live');
    expect(made).toMatchObject({ id: expect.any(String), environment: 'live', status: 'active', key: expect.stringMatching(/^svc_live_/) });
    expect(made.prefix).toBe(`${made.key.slice(0, 12)}…${made.key.slice(-4)}`);

    const rolled = await out('roll-key', '--key', made.id, '--expire-in-hours', '2');
    expect(rolled).toMatchObject({ environment: 'live', status: 'active', key: expect.stringMatching(/^svc_live_/), previous: { id: made.id, status: 'expiring' } });
    const hours = (Date.parse(rolled.previous.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(1.9);
    expect(hours).toBeLessThanOrEqual(2);

    // Revoked by the key itself; the list shows both, newest first, never a key.
    expect(await out('revoke-key', '--key', rolled.key)).toMatchObject({ id: rolled.id, status: 'revoked' });
    const listed = await cli('list-keys', '--app', app.id);
    expect(JSON.parse(listed.stdout).map((k: { id: string; status: string }) => [k.id, k.status])).toEqual([
      [rolled.id, 'revoked'],
      [made.id, 'expiring'],
    ]);
    expect(listed.stdout).not.toContain(made.key);
    expect(listed.stdout).not.toContain(rolled.key);

    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      const rows = await c.query('SELECT actor_member_id, actor_email, action, target FROM gateway.audit_log WHERE organization_id = $1 ORDER BY seq', [org.id]);
      expect(rows.rows).toEqual([
        { actor_member_id: null, actor_email: 'admin-cli', action: 'api_key.created', target: made.id },
        { actor_member_id: null, actor_email: 'admin-cli', action: 'api_key.rolled', target: made.id },
        { actor_member_id: null, actor_email: 'admin-cli', action: 'api_key.revoked', target: rolled.id },
      ]);
    } finally {
      await c.end();
    }
  }, 60_000);

  it('refuses a bad roll with a message and exit 1', async () => {
    const boot = await out('bootstrap', '--json', '--name', 'CLI roll refusals');
    const [key] = (await out('list-keys', '--app', boot.connected_app_id)) as Array<{ id: string }>;
    for (const [args, message] of [
      [['--key', key!.id, '--expire-in-hours', '169'], /--expire-in-hours must be a whole number of hours from 0 to 168/],
      [['--key', key!.id, '--expire-in-hours', '1h'], /--expire-in-hours must be/],
      [['--key', key!.id], /--expire-in-hours is required/],
      [['--key', '00000000-0000-4000-8000-000000000000', '--expire-in-hours', '1'], /API key 00000000-0000-4000-8000-000000000000 was not found/],
    ] as const) {
      const r = await cli('roll-key', ...args);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(r.stderr).toMatch(message);
    }
    await out('roll-key', '--key', key!.id, '--expire-in-hours', '0');
    const again = await cli('roll-key', '--key', key!.id, '--expire-in-hours', '0');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: API key .* is revoked or expired/m);
  }, 60_000);
});
