import { gzipSync } from 'node:zlib';
import { limits } from '@acct/contracts';
import { appOf, json, serve, type Served } from '../testing/fakes';
import { bodyError, parseJson, requireJson } from './body';

describe('requireJson + parseJson', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve(
      appOf(requireJson, parseJson, async (ctx) => {
        ctx.body = { parsed: ctx.request.body ?? null };
      }),
    );
  });
  afterAll(() => served.close());

  const post = (body: string, type?: string) => served.call('/', { method: 'POST', body, headers: type ? { 'content-type': type } : {} });

  it('parses a JSON object into ctx.request.body', async () => {
    const r = await post('{"a":1,"b":[true]}', 'application/json');
    expect(r.status).toBe(200);
    expect((await json(r)).parsed).toEqual({ a: 1, b: [true] });
  });

  it('takes a +json media type', async () => {
    expect((await post('{"a":1}', 'application/merge-patch+json')).status).toBe(200);
  });

  it('lets a request without a body through', async () => {
    expect((await served.call('/', { method: 'POST' })).status).toBe(200);
  });

  it.each([['application/x-www-form-urlencoded'], ['text/plain']])('refuses a %s body with 415', async (type) => {
    const r = await post('name=x', type);
    expect(r.status).toBe(415);
    expect((await json(r)).error).toMatchObject({
      code: 'validation_failed',
      message: 'Send the body as application/json.',
      details: [{ field: 'Content-Type', issue: 'unsupported_media_type', message: `Content-Type ${type} is not supported.` }],
    });
  });

  it('refuses malformed JSON with 400 malformed_json', async () => {
    const r = await post('{"a":', 'application/json');
    expect(r.status).toBe(400);
    expect((await json(r)).error).toMatchObject({ code: 'validation_failed', details: [{ field: '/', issue: 'malformed_json' }] });
  });

  it('refuses a bare JSON scalar (strict JSON) with 400', async () => {
    expect((await post('"text"', 'application/json')).status).toBe(400);
  });

  it('refuses a body over the limit with 413', async () => {
    const r = await post(JSON.stringify({ a: 'x'.repeat(limits.json_body_bytes_max) }), 'application/json');
    expect(r.status).toBe(413);
    expect((await json(r)).error).toMatchObject({ code: 'validation_failed', message: `The request body is over the ${limits.json_body_bytes_max}-byte limit.` });
  });

  it('reads a gzip-compressed body', async () => {
    const body = gzipSync(Buffer.from('{"a":"é"}'));
    const r = await served.call('/', { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect(r.status).toBe(200);
    expect((await json(r)).parsed).toEqual({ a: 'é' });
  });

  it('refuses a compressed body that inflates past the limit with 413', async () => {
    const body = gzipSync(Buffer.from(JSON.stringify({ a: 'x'.repeat(limits.json_body_bytes_max) })));
    const r = await served.call('/', { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect(r.status).toBe(413);
  });

  it('refuses bytes that are not UTF-8 with 400 instead of replacing them with U+FFFD', async () => {
    const body = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const r = await served.call('/', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect((await json(r)).error).toMatchObject({ code: 'validation_failed', details: [{ field: '/', issue: 'invalid_encoding' }] });
  });

  it('refuses an unsupported content encoding with 415', async () => {
    const r = await served.call('/', { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json', 'content-encoding': 'bogus' } });
    expect(r.status).toBe(415);
    expect((await json(r)).error.message).toBe('The body uses an unsupported encoding or charset.');
  });
});

describe('bodyError', () => {
  it.each([
    [{ status: 413 }, 413],
    [{ type: 'entity.too.large' }, 413],
    [{ status: 415 }, 415],
    [{ type: 'encoding.unsupported' }, 415],
    [{ type: 'charset.unsupported' }, 415],
    [{ status: 400, type: 'entity.parse.failed' }, 400],
  ])('maps %j to %d', (err, status) => {
    const e = bodyError(err);
    expect(e.code).toBe('validation_failed');
    expect(e.httpStatus ?? 400).toBe(status);
  });
});
