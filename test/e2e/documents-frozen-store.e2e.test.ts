import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type LocalS3, startLocalS3 } from '@acct/stack';
import { type FreezableProxy, startFreezableProxy } from '@acct/testing';
import { multipart } from './documents.helpers';
import { type Keys, bootstrapOrg, client, type E2E, startE2E } from './harness';
import { type Api, E2E_ENV, createCustomer, createOpenInvoice, expectError, expectStatus } from './receivables.helpers';

/** Low bounds, so the test stays quick; the README gives the defaults (S3 3 s, gateway 5 s). */
const S3_TIMEOUT_MS = 1000;
const STORAGE_TIMEOUT_MS = 1500;
/** Generous: the bounds above plus a slow, shared machine; far below the 125 s this once took. */
const WITHIN_MS = 10_000;

/**
 * Document storage that hangs (accepts connections, answers nothing: a TCP proxy in front of s3rver
 * that stops forwarding): every route that needs it answers 503 with Retry-After within a bound,
 * and a failed upload leaves no `pending` reservation behind.
 */
describe('e2e: documents with a frozen store', () => {
  let s3: LocalS3;
  let proxy: FreezableProxy;
  let e2e: E2E;
  let keys: Keys;
  let api: Api;
  let db: pg.Client;

  beforeAll(async () => {
    s3 = await startLocalS3();
    proxy = await startFreezableProxy(s3.port);
    e2e = await startE2E({
      ...E2E_ENV,
      ...s3.env,
      S3_ENDPOINT: proxy.url,
      S3_TIMEOUT_MS: String(S3_TIMEOUT_MS),
      STORAGE_TIMEOUT_MS: String(STORAGE_TIMEOUT_MS),
    });
    keys = await bootstrapOrg(e2e.databaseUrl, 'Frozen store org');
    api = client(e2e.base, keys.test_key);
    db = new pg.Client({ connectionString: e2e.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    proxy?.thaw();
    await db?.end();
    await e2e?.stop();
    await proxy?.close();
    await s3?.stop();
  });

  const count = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);
  const pendingRows = () => count(`SELECT count(*) AS n FROM documents.documents WHERE status = 'pending'`);
  const upload = async (name: string, bytes: Buffer) => {
    const { body, contentType } = multipart({ name, type: 'text/plain', bytes }, { document_type: 'receipt' });
    const res = await fetch(`${e2e.base}/api/v1/documents`, { method: 'POST', headers: { authorization: `Bearer ${keys.test_key}`, 'content-type': contentType }, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: JSON.parse(text), text };
  };
  /** The answer and how long it took. */
  const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
    const t0 = Date.now();
    const r = await fn();
    return [r, Date.now() - t0];
  };
  const expectUnavailable = (r: { status: number; headers: Headers; json: any }, ms: number, what: string) => {
    expect({ what, status: r.status, code: r.json?.error?.code }).toEqual({ what, status: 503, code: 'service_unavailable' });
    expect(r.headers.get('retry-after')).toBeTruthy();
    expect({ what, withinBound: ms < WITHIN_MS }).toEqual({ what, withinBound: true });
  };

  it('answers 503 within the bound on every storage route, leaves no pending row, and recovers', async () => {
    // Before the freeze: a document, and a share of an invoice with its render.
    const kept = await upload('kept.txt', Buffer.from('kept'));
    expectStatus(kept, 201);
    const customerId = await createCustomer(api, 'Frozen customer');
    const invoice = await createOpenInvoice(api, customerId, 1000);
    const share = await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: invoice.id });
    expectStatus(share, 201);
    const token = String(share.json.data.url).split('/portal/')[1]!;
    const renders = await count(`SELECT count(*) AS n FROM documents.document_renders`);

    proxy.freeze();
    try {
      // Uploads: small and over a socket buffer (the PUT stalls mid-body), with and without a key.
      for (const [name, bytes] of [
        ['small.txt', Buffer.from('frozen')],
        [
          'large.txt',
          Buffer.from(
            randomBytes(600 * 1024)
              .toString('hex')
              .slice(0, 900 * 1024),
          ),
        ],
      ] as const) {
        const [r, ms] = await timed(() => upload(name, bytes));
        expectUnavailable(r, ms, `upload ${name} (${ms} ms)`);
        expect(await pendingRows()).toBe(0);
      }
      const [down, downMs] = await timed(() => api('GET', `/api/v1/documents/${kept.json.data.id}/download`));
      expectUnavailable(down, downMs, `download (${downMs} ms)`);
      const [render, renderMs] = await timed(() => api('GET', `/api/v1/document-renders/${share.json.data.render_id}/download`));
      expectUnavailable(render, renderMs, `render download (${renderMs} ms)`);
      const [portal, portalMs] = await timed(() => client(e2e.base)('GET', `/portal/${token}/pdf`));
      expectUnavailable(portal, portalMs, `portal pdf (${portalMs} ms)`);
      const [again, againMs] = await timed(() => api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: invoice.id }));
      expectUnavailable(again, againMs, `share create (${againMs} ms)`);
      expect(await count(`SELECT count(*) AS n FROM documents.document_renders`)).toBe(renders);
      // Readiness says so, within its own bound.
      const [ready, readyMs] = await timed(() => fetch(`http://127.0.0.1:${e2e.stack.services.get('documents')!.opsPort}/readyz`));
      expect({ status: ready.status, withinBound: readyMs < WITHIN_MS }).toEqual({ status: 503, withinBound: true });
      // Metadata does not need the store.
      expectStatus(await api('GET', `/api/v1/documents/${kept.json.data.id}`), 200);
    } finally {
      proxy.thaw();
    }
    expect(await pendingRows()).toBe(0);
    // Back: uploads and downloads work again.
    const after = await upload('after.txt', Buffer.from('after'));
    expectStatus(after, 201);
    const back = await fetch(`${e2e.base}/api/v1/documents/${kept.json.data.id}/download`, { headers: { authorization: `Bearer ${keys.test_key}` } });
    expect(await back.text()).toBe('kept');
    expectError(await api('GET', `/api/v1/documents/00000000-0000-4000-8000-000000000000`), 404, 'not_found');
  });
});
