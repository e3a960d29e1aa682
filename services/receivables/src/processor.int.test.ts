import { randomBytes, randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { type RpcReply, compileBody, schemas } from '@acct/contracts';
import { RpcClient, type RpcServer, decryptSecret, migrate, type Orm } from '@acct/kit';
import { NATS_URL, freshDatabase, silentLogger, uniquePrefix, type TestDatabase } from '@acct/testing';
import { openReceivablesOrm } from './db';
import { createReceivablesServer } from './service';

const validProcessor = compileBody(schemas.receivables.paymentProcessorResponse);

describe('receivables: payment-processor settings against real Postgres and NATS', () => {
  const key = randomBytes(32);
  let db: TestDatabase;
  let orm: Orm;
  let nc: NatsConnection;
  let server: RpcServer;
  let client: RpcClient;

  const ctx = (connectedAppId = randomUUID()) => ({ organizationId: randomUUID(), connectedAppId, environment: 'test' as const, apiKeyId: randomUUID(), requestId: randomUUID() });
  const put = (c: ReturnType<typeof ctx>, secret: string) =>
    client.call('payment_processor.put', { ctx: c, params: {}, query: {}, body: { provider: 'stripe', signing_secret: secret } });
  const ok = (r: RpcReply): any => {
    if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
    expect(validProcessor(r.body)).toBe(true);
    return (r.body as { data: unknown }).data;
  };

  beforeAll(async () => {
    db = await freshDatabase('acct_rcv_proc_it');
    orm = await openReceivablesOrm(db.url, 10);
    await migrate(orm);
    nc = await connect({ servers: NATS_URL });
    const prefix = uniquePrefix();
    ({ server } = createReceivablesServer({ nc, prefix, orm, log: silentLogger() }, { processorSecretKey: key }));
    server.start();
    client = new RpcClient(nc, prefix, 5000);
  });

  afterAll(async () => {
    await server.drain();
    await nc.drain();
    await orm.close(true);
    await db.drop();
  });

  const stored = async (id: string) =>
    (
      await orm.em.fork().getConnection().execute<Array<{ secret_encrypted: string; status: string }>>('SELECT secret_encrypted, status FROM payment_processors WHERE id = ?', [id])
    )[0]!;

  it('keeps the signing secret only encrypted, bound to the source id, under PROCESSOR_SECRET_KEY', async () => {
    const secret = `whsec_${randomBytes(24).toString('base64url')}`;
    const p = ok(await put(ctx(), secret));
    const row = await stored(p.source_id);
    expect(row.secret_encrypted).not.toContain(secret.slice(6));
    expect(decryptSecret(key, p.source_id, row.secret_encrypted)).toBe(secret);
    expect(() => decryptSecret(key, randomUUID(), row.secret_encrypted)).toThrow();
  });

  it('two first PUTs of one app at once leave one processor (the second updates the first)', async () => {
    const c = ctx();
    const [a, b] = await Promise.all([put(c, `whsec_${'a'.repeat(32)}`), put({ ...c, requestId: randomUUID() }, `whsec_${'b'.repeat(32)}`)]);
    expect(ok(a).source_id).toBe(ok(b).source_id);
    const count = await orm.em.fork().getConnection().execute<Array<{ n: string }>>('SELECT count(*) AS n FROM payment_processors WHERE organization_id = ?', [c.organizationId]);
    expect(Number(count[0]!.n)).toBe(1);
  });

  it('is per connected app: another app of the organization gets its own source id', async () => {
    const c = ctx();
    const first = ok(await put(c, `whsec_${'c'.repeat(32)}`));
    const second = ok(await put({ ...c, connectedAppId: randomUUID() }, `whsec_${'c'.repeat(32)}`));
    expect(second.source_id).not.toBe(first.source_id);
  });
});
