import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import Router from '@koa/router';
import type { RouteDef, RpcReply } from '@acct/contracts';
import { appOf, json, serve, withPrincipal, type Served } from '../testing/fakes';
import { type UploadRequest, upload } from './upload';
import type { Middleware } from './state';

describe('upload', () => {
  const route = { operationId: 'uploadDoc', method: 'POST', path: '/docs/{id}', rpc: null, kind: 'upload' } as RouteDef;
  const seen: Array<Omit<UploadRequest, 'stream'> & { text: string }> = [];
  let reply: RpcReply;
  let served: Served;
  const validated: Middleware = async (ctx, next) => {
    ctx.state.query = { source: 'email' };
    await next();
  };

  beforeAll(async () => {
    const router = new Router();
    router.register(
      '/docs/:id',
      ['POST'],
      [
        withPrincipal(),
        validated,
        upload(route, async ({ stream, ...rest }) => {
          seen.push({ ...rest, text: await text(stream) });
          return reply;
        }),
      ],
    );
    const app = appOf();
    app.use(router.routes());
    served = await serve(app);
  });
  afterAll(() => served.close());
  beforeEach(() => {
    seen.length = 0;
    reply = { ok: true, status: 201, body: { data: { id: 'd1' } } };
  });

  it('hands the unread request stream, its headers and the trusted context to the handler', async () => {
    const r = await served.call('/docs/d1', { method: 'POST', body: 'file bytes', headers: { 'content-type': 'application/pdf', 'idempotency-key': 'u-1' } });
    expect(r.status).toBe(201);
    expect(await json(r)).toEqual({ data: { id: 'd1' } });
    expect(seen).toEqual([
      {
        ctx: { organizationId: 'org-1', connectedAppId: 'app-1', environment: 'test', apiKeyId: 'key-1', requestId: 'req-test', idempotencyKey: 'u-1' },
        params: { id: 'd1' },
        query: { source: 'email' },
        contentType: 'application/pdf',
        contentLength: 10,
        text: 'file bytes',
      },
    ]);
  });

  it('leaves contentLength out of a chunked body', async () => {
    const body = Readable.toWeb(Readable.from([Buffer.from('a'), Buffer.from('b')])) as ReadableStream;
    await served.call('/docs/d1', { method: 'POST', body, duplex: 'half' });
    expect(seen[0]?.text).toBe('ab');
    expect(seen[0]).not.toHaveProperty('contentLength');
  });

  it('answers the handler’s error reply in the envelope', async () => {
    reply = { ok: false, error: { code: 'validation_failed', message: 'Not a PDF.', details: [] } };
    const r = await served.call('/docs/d1', { method: 'POST', body: 'x' });
    expect(r.status).toBe(400);
    expect((await json(r)).error).toMatchObject({ code: 'validation_failed', message: 'Not a PDF.', request_id: 'req-test' });
  });
});
