import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { type OwnNatsServer, ROOT, type Stack, freePort, generateStackBusAuth, startOwnNats, startStack } from '@acct/stack';
import { CONSUMERS } from '@acct/contracts';
import { dropDatabase } from '@acct/kit';
import { PG_SERVER_URL, uniqueName, uniquePrefix, waitFor } from '@acct/testing';
import { bootstrapOrg, client } from './harness';
import { createCustomer, createOpenInvoice, expectStatus, uid } from './receivables.helpers';

const run = promisify(execFile);
const today = new Date().toISOString().slice(0, 10);

/**
 * Issue 27: the whole system on a nats-server with a user per service (as `npm start` and
 * `npm run stack:cluster` run it when they start their own NATS): every path between the services
 * works within its permissions (postings, reference and outbound events, the durable consumers,
 * service-to-service calls, the operator's rebuild), and the server logs no permission violation.
 */
describe('the stack on a bus with a user per service', () => {
  const name = uniqueName('acct_busauth');
  const dir = path.join(os.tmpdir(), name);
  const prefix = uniquePrefix();
  const u = new URL(PG_SERVER_URL);
  u.pathname = `/${name}`;
  const databaseUrl = u.toString();
  const auth = generateStackBusAuth(prefix);
  let nats: OwnNatsServer;
  let stack: Stack;
  let api: ReturnType<typeof client>;
  let org: Awaited<ReturnType<typeof bootstrapOrg>>;

  beforeAll(async () => {
    nats = await startOwnNats(path.join(dir, 'jetstream'), path.join(dir, 'nats.log'), freePort, undefined, auth.server);
    stack = await startStack({ databaseUrl, natsUrl: nats.url, natsPrefix: prefix, gatewayPort: 0, logs: { dir }, natsSeeds: auth.seeds, env: { LOG_LEVEL: 'info' } });
    org = await bootstrapOrg(databaseUrl, 'Bus auth org');
    api = client(stack.gatewayUrl, org.test_key);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await nats?.kill('SIGTERM');
    await dropDatabase(databaseUrl);
    if (!process.env.E2E_KEEP_LOGS) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('round trip: postings reach reporting, services call each other, the operator rebuilds', async () => {
    const customerId = await createCustomer(api, 'Bus customer');
    await createOpenInvoice(api, customerId, 12_345);
    const vendor = await api('POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: 'Bus vendor' });
    expectStatus(vendor, 201);
    // receivables asks documents for the estimate defaults; documents asks receivables for the estimate.
    const est = await api('POST', '/api/v1/estimates', {
      external_estimate_id: uid('est'),
      customer_id: customerId,
      issue_date: '2026-05-01',
      line_items: [{ description: 'Design', quantity: 1, unit_amount_cents: 5000 }],
    });
    expectStatus(est, 201);
    expectStatus(await api('POST', '/api/v1/document-shares', { record_type: 'estimate', record_id: est.json.data.id }), 201);

    const tb = await api('GET', `/api/v1/reports/trial-balance?as_of=${today}`);
    expectStatus(tb, 200);
    expect(tb.json.data).toMatchObject({ total_debit_cents: 12_345, total_credit_cents: 12_345, balanced: true });
    const ar = await api('GET', `/api/v1/reports/accounts-receivable?as_of=${today}`);
    expectStatus(ar, 200);

    // The lock date: receivables pushes it to payables (books_lock.apply) and emits books_lock.updated,
    // which payables' own durable consumer applies to its copy.
    expectStatus(await api('PUT', '/api/v1/settings/books-lock', { lock_date: '2020-12-31' }), 200);
    const pg = new Client({ connectionString: databaseUrl });
    await pg.connect();
    try {
      const fed = async () => (await pg.query(`SELECT count(*)::int AS n FROM payables.consumed_events WHERE consumer = $1`, [CONSUMERS.payablesBooksLock])).rows[0].n as number;
      await waitFor(async () => (await fed()) === 1, 20_000);
      expect((await pg.query(`SELECT count(*)::int AS n FROM payables.parked_events`)).rows[0].n).toBe(0);
    } finally {
      await pg.end();
    }

    // The operator's rebuild over NATS, with the admin user's seed.
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'services/gateway/dist/admin/cli.js'), 'reporting', 'rebuild'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, NATS_URL: nats.url, NATS_PREFIX: prefix, NATS_NKEY_SEED: auth.seeds.admin },
    });
    expect(JSON.parse(stdout)).toMatchObject({ applied: expect.any(Number) });
    expect((await api('GET', `/api/v1/reports/trial-balance?as_of=${today}`)).json.data).toMatchObject({ total_debit_cents: 12_345, balanced: true });

    // The gateway publishes from its own outbox: a key the operator revokes, api_key.revoked on the stream.
    const cli = (...args: string[]) =>
      run(process.execPath, [path.join(ROOT, 'services/gateway/dist/admin/cli.js'), ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl } });
    const key = JSON.parse((await cli('create-key', '--app', org.connected_app_id, '--env', 'test')).stdout) as { id: string };
    await cli('revoke-key', '--key', key.id);
    const gw = new Client({ connectionString: databaseUrl });
    await gw.connect();
    try {
      const published = async () =>
        (await gw.query(`SELECT published_at IS NOT NULL AS done FROM gateway.outbox WHERE payload->'data'->>'api_key_id' = $1`, [key.id])).rows[0]?.done === true;
      await waitFor(published, 30_000);
    } finally {
      await gw.end();
    }

    // Nothing any process did was refused by the server.
    const log = fs.readFileSync(path.join(dir, 'nats.log'), 'utf8');
    expect(log.split('\n').filter((l) => /permissions violation/i.test(l))).toEqual([]);
    expect(log).toMatch(/Using configuration file: .*nats\.auth\.conf/);
  }, 120_000);
});
