import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUS_PRINCIPALS, type BusPrincipal, CONSUMERS, eventsStreamName, postingSubject, rpcSubject } from '@acct/contracts';
import { ensureEventsStream, natsAuthOptions, passwordEnvOf } from '@acct/kit';
import { AckPolicy, type NatsConnection, connect } from 'nats';
import { startNatsWithUsers } from '@acct/testing';
import { type OwnNatsServer, generateStackBusAuth, startOwnNats } from './nats-server';
import { ROOT, freePort } from './stack';

/**
 * Issue 27: the bus is a trust boundary. A nats-server of this test's own, with the users the stack
 * tool writes (busPermissions in @acct/contracts), shows that a service's credentials reach its own
 * subjects and no other's, and that an anonymous client is refused.
 */
describe('NATS users per service', () => {
  const prefix = 'busauth';
  const stream = eventsStreamName(prefix);
  const enc = new TextEncoder();
  let dir: string;
  let server: OwnNatsServer;
  let seeds: Record<BusPrincipal, string>;
  const conns: NatsConnection[] = [];

  const as = async (p: BusPrincipal): Promise<NatsConnection> => {
    const nc = await connect({ servers: server.url, name: p, reconnect: false, ...natsAuthOptions({ NATS_NKEY_SEED: seeds[p] }, p) });
    conns.push(nc);
    return nc;
  };
  /** Messages the stream holds on a subject (read with the operator's credentials). */
  const stored = async (subject: string): Promise<number> => {
    const jsm = await (await as('admin')).jetstreamManager();
    const info = await jsm.streams.info(stream, { subjects_filter: subject });
    return Object.values(info.state.subjects ?? {}).reduce((a, b) => a + b, 0);
  };

  beforeAll(async () => {
    ({ dir, server, seeds } = await startNatsWithUsers(prefix, 'acct-busauth-'));
    await ensureEventsStream(await as('payables'), prefix);
  });

  afterAll(async () => {
    await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
    await server?.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an anonymous client and a wrong key', async () => {
    await expect(connect({ servers: server.url, reconnect: false })).rejects.toThrow(/authorization/i);
    const other = generateStackBusAuth(prefix).seeds.payables;
    await expect(connect({ servers: server.url, reconnect: false, ...natsAuthOptions({ NATS_NKEY_SEED: other }, 'payables') })).rejects.toThrow(/authorization/i);
  });

  it("lets payables publish its own postings and not receivables'", async () => {
    const js = (await as('payables')).jetstream();
    await js.publish(postingSubject(prefix, 'payables'), enc.encode('{"id":"own"}'), { msgID: 'own-1' });
    expect(await stored(postingSubject(prefix, 'payables'))).toBe(1);

    const forged = postingSubject(prefix, 'receivables');
    await expect(js.publish(forged, enc.encode('{"id":"forged"}'), { msgID: 'forged-1', timeout: 1000 })).rejects.toThrow();
    const nc = await as('payables');
    nc.publish(forged, enc.encode('{"id":"forged-core"}'));
    await nc.flush();
    expect(await stored(forged)).toBe(0);
    // receivables itself may.
    await (await as('receivables')).jetstream().publish(forged, enc.encode('{"id":"real"}'), { msgID: 'real-1' });
    expect(await stored(forged)).toBe(1);
  });

  it('lets only the gateway (and the services that declare the call) send requests to a service', async () => {
    const receivables = await as('receivables');
    let received = 0;
    receivables.subscribe(rpcSubject(prefix, 'customers.get'), {
      queue: `${prefix}.receivables`,
      callback: (_e, m) => {
        received++;
        m.respond(enc.encode('{"ok":true}'));
      },
    });
    await receivables.flush();

    const gateway = await as('gateway');
    expect(new TextDecoder().decode((await gateway.request(rpcSubject(prefix, 'customers.get'), enc.encode('{}'), { timeout: 2000 })).data)).toBe('{"ok":true}');
    // documents declares customers.get (linking a document to a customer).
    await (await as('documents')).request(rpcSubject(prefix, 'customers.get'), enc.encode('{}'), { timeout: 2000 });
    expect(received).toBe(2);

    const payables = await as('payables');
    await expect(payables.request(rpcSubject(prefix, 'customers.get'), enc.encode('{}'), { timeout: 1000 })).rejects.toThrow();
    const reporting = await as('reporting');
    await expect(reporting.request(rpcSubject(prefix, 'invoices.post'), enc.encode('{}'), { timeout: 1000 })).rejects.toThrow();
    expect(received).toBe(2);
  });

  it("does not let a service listen on another's operations or replies", async () => {
    const payables = await as('payables');
    for (const subject of [rpcSubject(prefix, 'customers.get'), '_INBOX_gateway.>', '_INBOX.>']) {
      const refused = new Promise<Error>((resolve) => payables.subscribe(subject, { callback: (err) => err && resolve(err) }));
      expect(String(await refused)).toMatch(/permissions violation/i);
    }
  });

  it("lets reporting read its own durable consumer and not the webhook dispatcher's", async () => {
    const config = { ack_policy: AckPolicy.Explicit, filter_subject: `${prefix}.events.>` };
    const rjsm = await (await as('reporting')).jetstreamManager();
    await rjsm.consumers.add(stream, { ...config, durable_name: CONSUMERS.reportingPostings });
    expect((await rjsm.consumers.info(stream, CONSUMERS.reportingPostings)).name).toBe(CONSUMERS.reportingPostings);
    await expect(rjsm.consumers.add(stream, { ...config, durable_name: CONSUMERS.webhookOutbound })).rejects.toThrow();
    await expect(rjsm.streams.delete(stream)).rejects.toThrow();
    const wjsm = await (await as('webhook-dispatcher')).jetstreamManager();
    await expect(wjsm.consumers.info(stream, CONSUMERS.reportingPostings)).rejects.toThrow();
  });
});

/** docker-compose.yml's nats: deploy/nats/auth.conf, users with passwords from the server's environment. */
describe("compose's NATS users (user and password)", () => {
  const prefix = 'acct';
  let dir: string;
  let server: OwnNatsServer;
  const password = (p: BusPrincipal) => `test-password-of-${p}`;
  const login = (p: BusPrincipal, pass = password(p)) => connect({ servers: server.url, name: p, reconnect: false, ...natsAuthOptions({ NATS_USER: p, NATS_PASSWORD: pass }, p) });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-busauth-compose-'));
    // nats-server reads each $NATS_PASSWORD_<SERVICE> of the config from its environment (inherited).
    for (const p of BUS_PRINCIPALS) process.env[passwordEnvOf(p)] = password(p);
    const config = fs.readFileSync(path.join(ROOT, 'deploy/nats/auth.conf'), 'utf8');
    server = await startOwnNats(path.join(dir, 'jetstream'), path.join(dir, 'nats.log'), freePort, undefined, {
      config,
      admin: natsAuthOptions({ NATS_USER: 'admin', NATS_PASSWORD: password('admin') }, 'admin'),
    });
  });

  afterAll(async () => {
    for (const p of BUS_PRINCIPALS) delete process.env[passwordEnvOf(p)];
    await server?.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a wrong password and anonymous clients, and keeps payables off receivables' subjects", async () => {
    await expect(login('payables', password('receivables'))).rejects.toThrow(/authorization/i);
    await expect(connect({ servers: server.url, reconnect: false })).rejects.toThrow(/authorization/i);
    const nc = await login('payables');
    try {
      await ensureEventsStream(nc, prefix);
      const js = nc.jetstream();
      await js.publish(postingSubject(prefix, 'payables'), new TextEncoder().encode('{"id":"a"}'), { msgID: 'a' });
      await expect(js.publish(postingSubject(prefix, 'receivables'), new TextEncoder().encode('{"id":"b"}'), { msgID: 'b', timeout: 1000 })).rejects.toThrow();
      await expect(nc.request(rpcSubject(prefix, 'customers.get'), new Uint8Array(), { timeout: 1000 })).rejects.toThrow();
    } finally {
      await nc.close();
    }
  });
});
