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
