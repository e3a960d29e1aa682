import { createHash, randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import type { TrustedContext } from '@acct/contracts';
import { type Orm, RpcClient, migrate, ormOpener, wireService, type ServiceWiring } from '@acct/kit';
import { type LocalS3, startLocalS3 } from '@acct/stack';
import { NATS_URL, freshDatabase, silentLogger, startFreezableProxy, uniquePrefix, type TestDatabase } from '@acct/testing';
import { loadDocumentsConfig } from './config';
import { documentsService } from './service';
import { Storage } from './storage';
import { Sweeper } from './sweeper';

/** The documents service against real Postgres, NATS and an S3 server (s3rver), without the gateway. */
describe('documents service against Postgres, NATS and S3', () => {
  let db: TestDatabase;
  let orm: Orm;
  let nc: NatsConnection;
  let s3: LocalS3;
  let storage: Storage;
  let wiring: ServiceWiring;
  let client: RpcClient;
  const ctx: TrustedContext = { organizationId: randomUUID(), connectedAppId: randomUUID(), environment: 'test', apiKeyId: randomUUID(), requestId: randomUUID() };
  const call = (op: 'documents.upload_prepare' | 'documents.upload_finalize' | 'documents.upload_discard' | 'documents.get', body: unknown, params: Record<string, string> = {}) =>
    client.call(op as never, { ctx, params, query: {}, body }) as Promise<{
      ok: boolean;
      status?: number;
      body?: any;
      error?: { code: string; details?: { issue: string }[] };
    }>;
  const pendingRows = async () => (await orm.em.fork().execute<{ n: string }[]>(`SELECT count(*) AS n FROM documents WHERE status = 'pending'`))[0]!.n;

  beforeAll(async () => {
    db = await freshDatabase();
    s3 = await startLocalS3();
    const config = loadDocumentsConfig({ ...s3.env, PENDING_UPLOAD_TTL_S: '60' });
    storage = new Storage(config);
    const def = documentsService({ config, storage });
    orm = await ormOpener(def)(db.url, 5);
    await migrate(orm);
    nc = await connect({ servers: NATS_URL });
    const prefix = uniquePrefix();
    wiring = wireService(def, { nc, prefix, orm, log: silentLogger() });
    wiring.server.start();
    await nc.flush();
    client = new RpcClient(nc, prefix, 5000);
  });
  afterAll(async () => {
    await wiring?.server.drain();
    await nc?.close();
    await orm?.close(true);
    storage?.close();
    await s3?.stop();
    await db?.drop();
  });

  const reserve = async (bytes: Buffer) =>
    call('documents.upload_prepare', {
      file_name: 'a.txt',
      declared_content_type: 'text/plain',
      size_bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      fields: { document_type: 'receipt' },
    });
  const put = async (url: string, headers: Record<string, string>, bytes: Buffer) => {
    const r = await fetch(url, { method: 'PUT', headers, body: bytes });
    expect(r.status).toBe(200);
  };

  it('finalizes only bytes that match the reserved size and SHA-256; a mismatch leaves nothing', async () => {
    const bytes = Buffer.from('hello world');
    const ok = await reserve(bytes);
    expect(ok.ok).toBe(true);
    await put(ok.body.put_url, ok.body.headers, bytes);
    const done = await call('documents.upload_finalize', { upload_id: ok.body.upload_id });
    expect(done.body.data).toMatchObject({ status: 'uploaded', content_type: 'text/plain', size_bytes: bytes.length });

    const other = Buffer.from('hello WORLD');
    const bad = await reserve(bytes);
    await put(bad.body.put_url, bad.body.headers, other); // same length, other bytes
    const refused = await call('documents.upload_finalize', { upload_id: bad.body.upload_id });
    expect(refused.error?.code).toBe('conflict');
    expect(await storage.head(Storage.key(ctx.organizationId, ctx.environment, bad.body.upload_id))).toBeUndefined();
    expect((await call('documents.get', {}, { id: bad.body.upload_id })).error?.code).toBe('not_found');
  });

  it('discards a reservation (row and object) and the sweeper removes stale ones, object first', async () => {
    const bytes = Buffer.from('to be discarded');
    const a = await reserve(bytes);
    await put(a.body.put_url, a.body.headers, bytes);
    expect((await call('documents.upload_discard', { upload_id: a.body.upload_id })).body).toEqual({ discarded: true });
    expect(await storage.head(Storage.key(ctx.organizationId, ctx.environment, a.body.upload_id))).toBeUndefined();

    const before = Number(await pendingRows());
    const b = await reserve(bytes);
    await put(b.body.put_url, b.body.headers, bytes);
    expect(Number(await pendingRows())).toBe(before + 1);
    const sweeper = new Sweeper(orm, storage, 60_000, silentLogger());
    expect(await sweeper.sweepOnce(new Date())).toBe(0); // not stale yet
    expect(await sweeper.sweepOnce(new Date(Date.now() + 61_000))).toBe(before + 1);
    expect(Number(await pendingRows())).toBe(0);
    expect(await storage.head(Storage.key(ctx.organizationId, ctx.environment, b.body.upload_id))).toBeUndefined();
  });

  it('with the store frozen, S3 calls fail within their bound; a stale reservation goes at once, its object once the store answers', async () => {
    const proxy = await startFreezableProxy(s3.port);
    const frozenStorage = new Storage(loadDocumentsConfig({ ...s3.env, S3_ENDPOINT: proxy.url, S3_TIMEOUT_MS: '500' }));
    const queued = async () => Number((await orm.em.fork().execute<{ n: string }[]>(`SELECT count(*) AS n FROM discarded_objects`))[0]!.n);
    try {
      // Reserved and stored through a healthy service, then discarded by one whose store hangs.
      const bytes = Buffer.from('frozen upload');
      const a = await reserve(bytes);
      await put(a.body.put_url, a.body.headers, bytes);
      const key = Storage.key(ctx.organizationId, ctx.environment, a.body.upload_id);
      const frozenQueue = await queued();
      proxy.freeze();
      const t0 = Date.now();
      expect(await frozenStorage.bucketReachable()).toBe(false);
      await expect(frozenStorage.delete(key)).rejects.toMatchObject({ name: 'TimeoutError' });
      await expect(frozenStorage.head(key)).rejects.toMatchObject({ name: 'TimeoutError' });
      expect(Date.now() - t0).toBeLessThan(5000); // three calls of 500 ms each, with room to spare
      const sweeper = new Sweeper(orm, frozenStorage, 60_000, silentLogger());
      await expect(sweeper.sweepOnce(new Date(Date.now() + 61_000))).rejects.toMatchObject({ name: 'TimeoutError' });
      // The stale reservation went (key queued) even though its object could not be deleted.
      expect(Number(await pendingRows())).toBe(0);
      expect(await queued()).toBe(frozenQueue + 1);
      expect(await storage.head(key)).toEqual({ size: bytes.length, contentType: 'application/octet-stream' });
      proxy.thaw();
      await sweeper.sweepOnce();
      expect(await queued()).toBe(0);
      expect(await storage.head(key)).toBeUndefined();
    } finally {
      proxy.thaw();
      frozenStorage.close();
      await proxy.close();
    }
  });

  it('refuses a reservation over the size limit (413 at the gateway) before anything is stored', async () => {
    const r = await call('documents.upload_prepare', {
      file_name: 'big.pdf',
      declared_content_type: 'application/pdf',
      size_bytes: 26 * 1024 * 1024,
      sha256: '0'.repeat(64),
      fields: {},
    });
    expect(r.error?.details?.[0]?.issue).toBe('too_large');
  });
});
