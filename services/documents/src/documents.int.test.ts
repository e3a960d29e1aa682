import { createHash } from 'node:crypto';
import { createMetrics } from '@acct/kit';
import { type LocalS3, startLocalS3 } from '@acct/stack';
import { type TestService, ctx as newCtx, silentLogger, startFreezableProxy, startServiceForTest } from '@acct/testing';
import { Storage } from './adapters/storage';
import { loadDocumentsConfig } from './config';
import { documentsMetrics } from './metrics';
import { documentsService } from './service';
import { Sweeper } from './workers/sweeper';

/** The documents service against real Postgres, NATS and an S3 server (s3rver), without the gateway. */
describe('documents service against Postgres, NATS and S3', () => {
  let s3: LocalS3;
  let storage: Storage;
  let svc: TestService;
  const ctx = newCtx();
  const call = (op: 'documents.upload_prepare' | 'documents.upload_finalize' | 'documents.upload_discard' | 'documents.get', body: unknown, params: Record<string, string> = {}) =>
    svc.call(op, ctx, { params, body }) as Promise<{
      ok: boolean;
      status?: number;
      body?: any;
      error?: { code: string; details?: { issue: string }[] };
    }>;
  const count = async (q: string) => Number((await svc.sql(q))[0].n);
  const pendingRows = () => count(`SELECT count(*) AS n FROM documents WHERE status = 'pending'`);

  beforeAll(async () => {
    s3 = await startLocalS3();
    const config = loadDocumentsConfig({ ...s3.env, PENDING_UPLOAD_TTL_S: '60' });
    storage = new Storage(config);
    svc = await startServiceForTest(documentsService({ config, storage }));
  });
  afterAll(async () => {
    await svc?.stop();
    storage?.close();
    await s3?.stop();
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

    const before = await pendingRows();
    const b = await reserve(bytes);
    await put(b.body.put_url, b.body.headers, bytes);
    expect(await pendingRows()).toBe(before + 1);
    const sweeper = new Sweeper(svc.orm, storage, 60_000, silentLogger());
    expect(await sweeper.sweepOnce(new Date())).toBe(0); // not stale yet
    expect(await sweeper.sweepOnce(new Date(Date.now() + 61_000))).toBe(before + 1);
    expect(await pendingRows()).toBe(0);
    expect(await storage.head(Storage.key(ctx.organizationId, ctx.environment, b.body.upload_id))).toBeUndefined();
  });

  it('with the store frozen, S3 calls fail within their bound; a stale reservation goes at once, its object once the store answers', async () => {
    const proxy = await startFreezableProxy(s3.port);
    const frozenStorage = new Storage(loadDocumentsConfig({ ...s3.env, S3_ENDPOINT: proxy.url, S3_TIMEOUT_MS: '500' }));
    const metrics = createMetrics('documents', false);
    frozenStorage.errors = documentsMetrics(metrics).s3Errors;
    const errorsBy = async () => Object.fromEntries((await frozenStorage.errors!.get()).values.map((v) => [v.labels.operation, v.value]));
    const queued = () => count(`SELECT count(*) AS n FROM discarded_objects`);
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
      // Each failed call is counted by operation (s3_errors_total); a missing object is not an error.
      expect(await errorsBy()).toEqual({ HeadBucket: 1, DeleteObject: 1, HeadObject: 1 });
      const sweeper = new Sweeper(svc.orm, frozenStorage, 60_000, silentLogger());
      await expect(sweeper.sweepOnce(new Date(Date.now() + 61_000))).rejects.toMatchObject({ name: 'TimeoutError' });
      // The stale reservation went (key queued) even though its object could not be deleted.
      expect(await pendingRows()).toBe(0);
      expect(await queued()).toBe(frozenQueue + 1);
      expect(await storage.head(key)).toEqual({ size: bytes.length, contentType: 'application/octet-stream' });
      proxy.thaw();
      await sweeper.sweepOnce();
      expect(await queued()).toBe(0);
      expect(await storage.head(key)).toBeUndefined();
      expect(await frozenStorage.head(key)).toBeUndefined(); // a 404 answer, not counted
      expect((await errorsBy()).HeadObject).toBe(1);
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
