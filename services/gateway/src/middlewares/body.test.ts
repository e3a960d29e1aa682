import net from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { limits } from '@acct/contracts';
import { appOf, json, serve, type Served } from '../testing/fakes';
import { bodyError, parseJson, readRaw, requireMediaType } from './body';

describe('requireMediaType(application/json) + parseJson', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve(
      appOf(requireMediaType('application/json'), parseJson, async (ctx) => {
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

  it.each([
    ['application/json; charset=utf-8'],
    ['application/json; charset="UTF-8"'],
    ['Application/JSON;Charset=Utf-8'],
    ['application/json ; charset = utf-8'],
    ['application/json; v=1'],
  ])('takes a JSON body sent as %s', async (type) => {
    const r = await post('{"a":1}', type);
    expect(r.status).toBe(200);
    expect((await json(r)).parsed).toEqual({ a: 1 });
  });

  it.each([['application/json; charset=utf-16'], ['application/json; charset="UTF-16"'], ['application/json; charset=latin1'], ['application/json; charset=""']])(
    'refuses a UTF-8 JSON body labelled %s with 415: JSON bodies are UTF-8',
    async (type) => {
      const r = await post('{"a":1}', type);
      expect(r.status).toBe(415);
      expect((await json(r)).error).toMatchObject({
        code: 'validation_failed',
        message: 'Send the body as application/json in UTF-8.',
        details: [{ field: 'Content-Type', issue: 'unsupported_media_type' }],
      });
    },
  );

  it('refuses a body sent without a Content-Type with 415', async () => {
    const r = await served.call('/', { method: 'POST', body: Buffer.from('{"a":1}') });
    expect(r.status).toBe(415);
    expect((await json(r)).error.details[0].message).toBe('Content-Type (none) is not supported.');
  });

  it('refuses real UTF-16 bytes labelled charset=utf-16 with 415, before reading them', async () => {
    const r = await served.call('/', { method: 'POST', body: Buffer.from('{"a":1}', 'utf16le'), headers: { 'content-type': 'application/json; charset=utf-16le' } });
    expect(r.status).toBe(415);
  });

  it('lets a request without a body through', async () => {
    expect((await served.call('/', { method: 'POST' })).status).toBe(200);
  });

  /** Raw HTTP/1.1 requests written on ONE connection, and the raw responses read back. */
  const onOneSocket = (requests: string[]) =>
    new Promise<string>((resolve, reject) => {
      const { port } = new URL(served.base);
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(requests.join(''))); // the last asks the server to close
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (text += d));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });

  it('reads no body where none was sent, and the connection serves the next request; a chunked body is still read', async () => {
    const chunked = '{"a":1}';
    const text = await onOneSocket([
      'POST / HTTP/1.1\r\nHost: x\r\n\r\n',
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n',
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunked.length.toString(16)}\r\n${chunked}\r\n0\r\n\r\n`,
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{"b":2}',
    ]);
    // Each response: status line, headers, then its body (Content-Length bytes, no newline after it).
    const responses = text.split(/(?=HTTP\/1\.1 )/).map((r) => ({ status: r.slice(9, 12), body: JSON.parse(r.slice(r.indexOf('\r\n\r\n') + 4)) as unknown }));
    expect(responses.map((r) => r.status)).toEqual(['200', '200', '200', '200']);
    const bodies = responses.map((r) => r.body);
    expect(bodies).toEqual([{ parsed: {} }, { parsed: {} }, { parsed: { a: 1 } }, { parsed: { b: 2 } }]);
  });

  it.each([
    ['application/x-www-form-urlencoded'],
    ['text/plain'],
    ['application/json-patch+json'],
    ['application/merge-patch+json'],
    ['application/vnd.api+json'],
    ['multipart/form-data; boundary=x'],
    ['application/json, text/plain'],
    ['application/json; charset=utf-16;'], // a Content-Type that does not parse (an empty parameter) is refused whole
    ['application/json;'],
    ['application/jsonx'],
  ])('refuses a %s body with 415: only the declared type is taken', async (type) => {
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

  it.each([
    ['x-gzip', gzipSync],
    [' GZIP ', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ])('reads a body sent with Content-Encoding %j', async (encoding, compress) => {
    const body = compress(Buffer.from('{"a":"é"}'));
    const r = await served.call('/', { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-encoding': encoding } });
    expect(r.status).toBe(200);
    expect((await json(r)).parsed).toEqual({ a: 'é' });
  });

  it('keeps keys like __proto__ and constructor as data, and reads a body of only white space as {}', async () => {
    const r = await post('{"__proto__":{"x":1},"constructor":2}', 'application/json');
    expect(r.status).toBe(200);
    expect(JSON.stringify((await json(r)).parsed)).toBe('{"__proto__":{"x":1},"constructor":2}');
    expect((await json(await post(' \n ', 'application/json'))).parsed).toEqual({});
  });

  it('refuses a chunked body over the limit with 413', async () => {
    const big = `{"a":"${'x'.repeat(limits.json_body_bytes_max)}"}`;
    const text = await onOneSocket([
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`,
    ]);
    expect(text.slice(9, 12)).toBe('413');
  });

  it('refuses an unsupported content encoding with 415', async () => {
    const r = await served.call('/', { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json', 'content-encoding': 'bogus' } });
    expect(r.status).toBe(415);
    expect((await json(r)).error.message).toBe('The body uses an unsupported encoding or charset.');
  });
});

describe('requireMediaType(multipart/form-data)', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve(
      appOf(requireMediaType('multipart/form-data'), async (ctx) => {
        ctx.req.resume();
        ctx.body = { ok: true };
      }),
    );
  });
  afterAll(() => served.close());

  it('takes a multipart body with its boundary and refuses JSON with 415', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('hello')]), 'hello.txt');
    expect((await served.call('/', { method: 'POST', body: form })).status).toBe(200);
    const r = await served.call('/', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(415);
    expect((await json(r)).error.message).toBe('Send the body as multipart/form-data.');
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

describe('readRaw', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve(
      appOf(readRaw, async (ctx) => {
        ctx.body = { base64: (ctx.state.raw as Buffer).toString('base64') };
      }),
    );
  });
  afterAll(() => served.close());

  it('keeps the bytes as they came, bad UTF-8 too, after decompressing them; none sent is none', async () => {
    const bytes = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const plain = await served.call('/', { method: 'POST', body: bytes, headers: { 'content-type': 'application/json' } });
    expect((await json(plain)).base64).toBe(bytes.toString('base64'));
    const gz = await served.call('/', { method: 'POST', body: gzipSync(bytes), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect((await json(gz)).base64).toBe(bytes.toString('base64'));
    expect((await json(await served.call('/', { method: 'POST' }))).base64).toBe('');
  });

  it(`refuses a body over limits.webhook_body_bytes_max with 413`, async () => {
    const r = await served.call('/', { method: 'POST', body: 'x'.repeat(limits.webhook_body_bytes_max + 1), headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(413);
    expect((await json(r)).error.message).toBe(`The request body is over the ${limits.webhook_body_bytes_max}-byte limit.`);
  });
});
