import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ROUTES, type RouteDef, type RpcReply, limits } from '@acct/contracts';
import { type GatewayDeps, createGatewayApp } from './app';
import type { UploadRequest } from './middlewares/upload';
import { TokenBuckets } from './rate-limit';
import { TEST_KEY, fakeGatewayDeps, fakeRpc, json, serve, type Served } from './testing/fakes';

const base = { summary: 's', tag: 'Test', module: null, responses: [] as RouteDef['responses'] };
const obj = (properties: object, required: string[] = []) => ({ type: 'object', properties, required, additionalProperties: false });

/** One route of each kind, for these tests only. */
const TABLE: RouteDef[] = [
  { ...base, operationId: 'createThing', method: 'POST', path: '/t/things', rpc: 'customers.create', auth: true, body: obj({ name: { type: 'string' } }, ['name']) },
  { ...base, operationId: 'whoAmI', method: 'GET', path: '/t/me', rpc: null, auth: true },
  { ...base, operationId: 'portalPage', method: 'GET', path: '/t/page', rpc: null, auth: false, kind: 'public', query: obj({ token: { type: 'string' } }) },
  {
    ...base,
    operationId: 'downloadFile',
    method: 'GET',
    path: '/t/files/{id}',
    rpc: 'customers.get',
    auth: true,
    kind: 'download',
    params: obj({ id: { type: 'string' } }, ['id']),
  },
  { ...base, operationId: 'uploadFile', method: 'POST', path: '/t/files', rpc: null, auth: true, kind: 'upload', query: obj({ source: { type: 'string' } }) },
  {
    ...base,
    operationId: 'patchThing',
    method: 'PATCH',
    path: '/t/things/{id}',
    rpc: 'customers.get',
    auth: true,
    params: obj({ id: { type: 'string' } }, ['id']),
    body: obj({ name: { type: 'string' } }),
  },
  {
    ...base,
    operationId: 'signedHook',
    method: 'POST',
    path: '/t/hooks/{source_id}',
    rpc: 'processor_hooks.stripe',
    auth: false,
    kind: 'raw',
    signatureHeader: 'stripe-signature',
    params: obj({ source_id: { type: 'string', minLength: 2 } }, ['source_id']),
  },
];

describe('createGatewayApp with a route of each kind', () => {
  let reply: RpcReply;
  const rpc = fakeRpc(() => reply);
  const uploads: Array<{ req: UploadRequest; bytes: number; sha256: string }> = [];
  let served: Served;

  const deps = (over: Partial<GatewayDeps> = {}): GatewayDeps => ({
    ...fakeGatewayDeps({ rpc }),
    routes: TABLE,
    handlers: {
      whoAmI: (ctx) => {
        ctx.body = { key: ctx.state.principal!.apiKeyId };
      },
      portalPage: (ctx) => {
        ctx.type = 'text/html';
        const token = ctx.state.query?.token;
        ctx.body = `<h1>token ${typeof token === 'string' ? token : '-'}</h1>`;
      },
    },
    uploads: {
      // Streams the upload to a sink, as the documents service will stream to storage.
      uploadFile: async (req) => {
        const hash = createHash('sha256');
        let bytes = 0;
        const sink = new Writable({
          write(chunk: Buffer, _enc, done) {
            bytes += chunk.length;
            hash.update(chunk);
            done();
          },
        });
        await pipeline(req.stream, sink);
        const sha256 = hash.digest('hex');
        uploads.push({ req, bytes, sha256 });
        return { ok: true, status: 201, body: { data: { bytes, sha256 } } };
      },
    },
    ...over,
  });

  beforeAll(async () => {
    served = await serve(createGatewayApp(deps()).app);
  });
  afterAll(() => served.close());
  beforeEach(() => {
    rpc.calls.length = 0;
    uploads.length = 0;
  });

  describe('client address (per-address limit before authentication)', () => {
    const twoClients = async (trustedProxies: number) => {
      const one = await serve(createGatewayApp(deps({ clientBuckets: new TokenBuckets(1, 1), trustedProxies })).app);
      try {
        const as = (ip: string) => one.call('/t/me', { key: TEST_KEY, headers: { 'x-forwarded-for': ip } });
        return [(await as('10.0.0.1')).status, (await as('10.0.0.2')).status];
      } finally {
        await one.close();
      }
    };

    it('is the socket address by default: a client cannot pick another one with X-Forwarded-For', async () => {
      expect(await twoClients(0)).toEqual([200, 429]);
    });

    it('is what the trusted proxy appended to X-Forwarded-For when one is configured', async () => {
      expect(await twoClients(1)).toEqual([200, 200]);
    });
  });

  describe('json', () => {
    it('authenticates, validates the JSON body and forwards it', async () => {
      reply = { ok: true, status: 201, body: { data: { id: 't1' } } };
      const r = await served.call('/t/things', { method: 'POST', key: TEST_KEY, json: { name: 'N' } });
      expect(r.status).toBe(201);
      expect(await json(r)).toEqual({ data: { id: 't1' } });
      expect(r.headers.get('ratelimit-limit')).toBe('1000');
      expect(rpc.calls[0]).toMatchObject({ op: 'customers.create', req: { ctx: { apiKeyId: 'key-1' }, body: { name: 'N' } } });
    });

    it('refuses a request without a key, a bad body and a non-JSON body', async () => {
      expect((await served.call('/t/things', { method: 'POST', json: { name: 'N' } })).status).toBe(401);
      expect((await served.call('/t/things', { method: 'POST', key: TEST_KEY, json: { nmae: 'N' } })).status).toBe(400);
      expect((await served.call('/t/things', { method: 'POST', key: TEST_KEY, body: 'x', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
      expect(rpc.calls).toHaveLength(0);
    });

    it('takes a JSON body on PATCH: validated, forwarded, refused when not JSON', async () => {
      reply = { ok: true, status: 200, body: { data: { id: 't1', name: 'M' } } };
      const r = await served.call('/t/things/t1', { method: 'PATCH', key: TEST_KEY, json: { name: 'M' } });
      expect(r.status).toBe(200);
      expect(rpc.calls[0]).toMatchObject({ op: 'customers.get', req: { params: { id: 't1' }, body: { name: 'M' } } });
      expect((await served.call('/t/things/t1', { method: 'PATCH', key: TEST_KEY, json: { nmae: 'M' } })).status).toBe(400);
      expect((await served.call('/t/things/t1', { method: 'PATCH', key: TEST_KEY, body: 'x', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
      expect(rpc.calls).toHaveLength(1);
    });

    it('answers a route the gateway serves itself with its handler', async () => {
      const r = await served.call('/t/me', { key: TEST_KEY });
      expect(await json(r)).toEqual({ key: 'key-1' });
    });
  });

  describe('public', () => {
    it('needs no API key and may answer HTML', async () => {
      const r = await served.call('/t/page?token=abc');
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await r.text()).toBe('<h1>token abc</h1>');
      // Limited per client address (the portal's pages), never by a key's budget.
      expect(r.headers.get('ratelimit-limit')).toBe('1000');
    });

    it('is limited per client address', async () => {
      const one = await serve(createGatewayApp(deps({ clientBuckets: new TokenBuckets(1, 1) })).app);
      try {
        expect((await one.call('/t/page?token=a')).status).toBe(200);
        expect((await one.call('/t/page?token=b')).status).toBe(429);
      } finally {
        await one.close();
      }
    });

    it('still validates the query', async () => {
      const r = await served.call('/t/page?colour=red');
      expect(r.status).toBe(400);
      expect((await json(r)).error.code).toBe('validation_failed');
    });
  });

  describe('raw', () => {
    it('needs no key and forwards the exact bytes (base64) with the signature header and no tenancy', async () => {
      reply = { ok: true, status: 200, body: { data: { received: true } } };
      const text = '{"id": "evt_1",  "b":"\u00e9"}\n';
      const r = await served.call('/t/hooks/src1', { method: 'POST', body: text, headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': 't=1,v1=ab' } });
      expect(r.status).toBe(200);
      expect(r.headers.get('ratelimit-limit')).toBe('1000'); // the per-address limit
      const req = rpc.calls[0]!.req as unknown as { ctx: Record<string, unknown>; params: unknown; body: { payload_base64: string; signature: string } };
      expect(rpc.calls[0]!.op).toBe('processor_hooks.stripe');
      expect(Object.keys(req.ctx)).toEqual(['requestId']);
      expect(req.params).toEqual({ source_id: 'src1' });
      expect(Buffer.from(req.body.payload_base64, 'base64').toString('utf8')).toBe(text);
      expect(req.body.signature).toBe('t=1,v1=ab');
    });

    it('forwards a missing signature as null and bytes that are not JSON as they are (the service refuses them)', async () => {
      reply = { ok: false, error: { code: 'signature_invalid', message: 'No signature.', details: [] } };
      const r = await served.call('/t/hooks/src1', { method: 'POST', body: 'not json', headers: { 'content-type': 'application/json' } });
      expect(r.status).toBe(400);
      expect((await json(r)).error.code).toBe('signature_invalid');
      expect(rpc.calls[0]!.req.body).toEqual({ payload_base64: Buffer.from('not json').toString('base64'), signature: null });
    });

    it('refuses a body over the limit (413), another Content-Type (415) and a bad path parameter (400) before forwarding', async () => {
      const big = await served.call('/t/hooks/src1', { method: 'POST', body: 'x'.repeat(limits.webhook_body_bytes_max + 1), headers: { 'content-type': 'application/json' } });
      expect(big.status).toBe(413);
      expect((await served.call('/t/hooks/src1', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
      expect((await served.call('/t/hooks/s', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(400);
      expect(rpc.calls).toHaveLength(0);
    });

    it('is limited per client address', async () => {
      const one = await serve(createGatewayApp(deps({ clientBuckets: new TokenBuckets(1, 1) })).app);
      try {
        const hook = () => one.call('/t/hooks/src1', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
        reply = { ok: true, status: 200, body: {} };
        expect((await hook()).status).toBe(200);
        const second = await hook();
        expect(second.status).toBe(429);
        expect(second.headers.get('retry-after')).not.toBeNull();
      } finally {
        await one.close();
      }
    });
  });

  describe('download', () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(4096)]);

    it('sends the bytes of the reply with Content-Type and Content-Disposition', async () => {
      reply = { ok: true, status: 200, body: null, bodyBase64: pdf.toString('base64'), contentType: 'application/pdf', filename: 'invoice 7.pdf' };
      const r = await served.call('/t/files/f1', { key: TEST_KEY });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/pdf');
      expect(r.headers.get('content-disposition')).toBe('attachment; filename="invoice 7.pdf"');
      expect(Buffer.from(await r.arrayBuffer()).equals(pdf)).toBe(true);
      expect(rpc.calls[0]).toMatchObject({ op: 'customers.get', req: { params: { id: 'f1' } } });
    });

    it('sends application/octet-stream and a bare attachment when the reply names neither', async () => {
      reply = { ok: true, status: 200, body: null, bodyBase64: pdf.toString('base64') };
      const r = await served.call('/t/files/f1', { key: TEST_KEY });
      expect(r.headers.get('content-type')).toBe('application/octet-stream');
      expect(r.headers.get('content-disposition')).toBe('attachment');
      expect((await r.arrayBuffer()).byteLength).toBe(pdf.length);
    });

    it('answers an error reply in the envelope, and refuses a request without a key', async () => {
      reply = { ok: false, error: { code: 'not_found', message: 'No such file.', details: [] } };
      const r = await served.call('/t/files/f2', { key: TEST_KEY });
      expect(r.status).toBe(404);
      expect((await json(r)).error).toMatchObject({ code: 'not_found', message: 'No such file.' });
      expect((await served.call('/t/files/f2')).status).toBe(401);
    });
  });

  describe('unknown paths', () => {
    it('authenticates an unknown /api/v1 path before its 404: no or bad key 401, a valid key 404', async () => {
      for (const path of ['/api/v1/nothing', '/api/v1', '/api/v1/customers/x/y']) {
        const none = await served.call(path);
        expect(none.status).toBe(401);
        expect((await json(none)).error.code).toBe('unauthorized');
        expect((await served.call(path, { key: `svc_test_${'b'.repeat(40)}` })).status).toBe(401);
        const known = await served.call(path, { key: TEST_KEY });
        expect(known.status).toBe(404);
        expect((await json(known)).error.code).toBe('not_found');
        expect(known.headers.get('ratelimit-limit')).toBe('1000');
      }
    });

    it('answers 404 outside /api/v1 without asking for a key', async () => {
      expect((await served.call('/api/v10/things')).status).toBe(404);
      expect((await served.call('/nowhere')).status).toBe(404);
    });
  });

  describe('methods a path does not have', () => {
    const expect405 = async (r: Response, allow: string[]) => {
      expect(r.status).toBe(405);
      expect((r.headers.get('allow') ?? '').split(/,\s*/).sort()).toEqual([...allow].sort());
      const body = await json(r);
      expect(body.error).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ field: 'method', issue: 'method_not_allowed' })] });
      expect(body.error.request_id).toBe(r.headers.get('request-id'));
    };

    it('answers 405 in the error envelope with an Allow header listing the methods of the path', async () => {
      await expect405(await served.call('/t/things', { method: 'DELETE', key: TEST_KEY }), ['POST']);
      await expect405(await served.call('/t/things/abc', { method: 'PUT', key: TEST_KEY, json: {} }), ['PATCH']);
      await expect405(await served.call('/t/files/abc', { method: 'DELETE', key: TEST_KEY }), ['GET', 'HEAD']);
      await expect405(await served.call('/t/page', { method: 'POST', json: {} }), ['GET', 'HEAD']);
      // OPTIONS is no operation of any path; a method the router does not implement at all is the same answer, not 501.
      await expect405(await served.call('/t/things', { method: 'OPTIONS', key: TEST_KEY }), ['POST']);
      await expect405(await served.call('/t/things', { method: 'PROPFIND', key: TEST_KEY }), ['POST']);
      expect(rpc.calls).toHaveLength(0);
    });

    it('leaves an unknown path 404 whatever the method', async () => {
      for (const method of ['GET', 'DELETE', 'PROPFIND']) {
        const r = await served.call('/t/nothing', { method, key: TEST_KEY });
        expect(r.status).toBe(404);
        expect(r.headers.get('allow')).toBeNull();
        expect((await json(r)).error.code).toBe('not_found');
      }
    });

    it('asks for the key first under /api/v1, as for an unknown path', async () => {
      const { app } = createGatewayApp(deps({ routes: undefined }));
      const s = await serve(app);
      try {
        const none = await s.call('/api/v1/customers', { method: 'DELETE' });
        expect(none.status).toBe(401);
        expect(none.headers.get('allow')).toBeNull();
        await expect405(await s.call('/api/v1/customers', { method: 'DELETE', key: TEST_KEY }), ['GET', 'HEAD', 'POST']);
        await expect405(await s.call('/api/v1/invoices/3f1c1f7e-6a61-4c57-9a57-6f0f3c1c9f00/post', { method: 'GET', key: TEST_KEY }), ['POST']);
        await expect405(await s.call('/developers/openapi.yaml', { method: 'POST', json: {} }), ['GET', 'HEAD']);
      } finally {
        await s.close();
      }
    });
  });

  describe('upload', () => {
    it('streams a body far over the JSON limit to the upload handler, unparsed', async () => {
      const file = randomBytes(3 * 1024 * 1024);
      const r = await served.call('/t/files?source=scan', {
        method: 'POST',
        key: TEST_KEY,
        body: file,
        headers: { 'content-type': 'application/octet-stream', 'idempotency-key': 'up-1' },
      });
      expect(r.status).toBe(201);
      const sha256 = createHash('sha256').update(file).digest('hex');
      expect(await json(r)).toEqual({ data: { bytes: file.length, sha256 } });
      expect(uploads).toHaveLength(1);
      expect(uploads[0]?.req).toMatchObject({
        ctx: { organizationId: 'org-1', apiKeyId: 'key-1', requestId: r.headers.get('request-id'), idempotencyKey: 'up-1' },
        query: { source: 'scan' },
        contentType: 'application/octet-stream',
        contentLength: file.length,
      });
      expect(rpc.calls).toHaveLength(0);
    });

    it('takes a multipart body as it comes', async () => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('hello')]), 'hello.txt');
      const r = await served.call('/t/files', { method: 'POST', key: TEST_KEY, body: form });
      expect(r.status).toBe(201);
      expect(uploads[0]?.req.contentType).toMatch(/^multipart\/form-data; boundary=/);
      expect(uploads[0]?.bytes).toBeGreaterThan(5);
    });

    it('authenticates and validates the query before the handler sees the stream', async () => {
      expect((await served.call('/t/files', { method: 'POST', body: 'x' })).status).toBe(401);
      expect((await served.call('/t/files?colour=red', { method: 'POST', key: TEST_KEY, body: 'x' })).status).toBe(400);
      expect(uploads).toHaveLength(0);
    });

    it('is rate limited', async () => {
      const limited = await serve(createGatewayApp(deps({ buckets: new TokenBuckets(1, 1) })).app);
      try {
        expect((await limited.call('/t/files', { method: 'POST', key: TEST_KEY, body: 'a' })).status).toBe(201);
        expect((await limited.call('/t/files', { method: 'POST', key: TEST_KEY, body: 'b' })).status).toBe(429);
      } finally {
        await limited.close();
      }
    });
  });

  describe('the route table', () => {
    const build =
      (route: Partial<RouteDef>, over: Partial<GatewayDeps> = {}) =>
      () =>
        createGatewayApp(deps({ routes: [{ ...TABLE[0], ...route } as RouteDef], ...over }));

    it.each([
      ['a public route that wants a key', { kind: 'public', auth: true, rpc: null }, /takes no API key/],
      ['a json route without a key', { auth: false }, /only public and raw routes go without an API key/],
      ['a raw route that wants a key', { kind: 'raw', auth: true }, /takes no API key/],
      ['a raw route without a signature header', { kind: 'raw', auth: false }, /a raw route is a POST forwarded to a service with its signature header/],
      ['a public route forwarded to a service', { kind: 'public', auth: false }, /answered by a gateway handler/],
      ['a download that is not a GET', { kind: 'download' }, /a download is a GET/],
      ['an upload that is a GET', { kind: 'upload', method: 'GET', rpc: null }, /an upload is a POST or a PUT/],
      ['an upload without a handler', { kind: 'upload', operationId: 'nobody', rpc: null }, /no upload handler for nobody/],
      ['a gateway route without a handler', { operationId: 'nobody', rpc: null }, /no gateway handler for nobody/],
    ] as Array<[string, Partial<RouteDef>, RegExp]>)('refuses %s at startup', (_what, route, message) => {
      expect(build(route)).toThrow(message);
    });

    it('serves contracts’ ROUTES by default, the OpenAPI document as a public route', async () => {
      const { app, router } = createGatewayApp(deps({ routes: undefined }));
      expect(router.stack.length).toBe(ROUTES.length);
      const s = await serve(app);
      try {
        const r = await s.call('/developers/openapi.yaml');
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toContain('application/yaml');
        expect(await r.text()).toBe('openapi: 3.1.0\n');
      } finally {
        await s.close();
      }
    });
  });
});
