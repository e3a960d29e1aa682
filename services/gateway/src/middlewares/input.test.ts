import Router from '@koa/router';
import { findBadInput, jsonPointer, limits } from '@acct/contracts';
import { appOf, json, serve, type Served } from '../testing/fakes';
import { parseJson } from './body';
import { checkInput } from './input';

const pointer = jsonPointer;

/** {"a":{"a":…{"a":leaf}}} with `levels` objects. */
function nested(levels: number, leaf: unknown = 1): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

describe('findBadInput', () => {
  it('passes ordinary values, astral characters (valid surrogate pairs) included', () => {
    expect(findBadInput({ a: ['x', 1, null, true, { b: 'é😀€' }], '😀': 'ok' }, pointer)).toBeNull();
  });

  it.each([
    [{ name: 'a\u0000' }, '/name', 'NUL'],
    [{ list: ['ok', 'x\ud800'] }, '/list/1', 'surrogate'],
    [{ list: ['ok', 'x\udfff'] }, '/list/1', 'surrogate'],
    [{ deep: { er: '\udc00x\ud83d' } }, '/deep/er', 'surrogate'],
  ])('finds the bad string in %j at %s', (value, field, what) => {
    expect(findBadInput(value, pointer)).toMatchObject({ field, issue: 'invalid_character', message: expect.stringContaining(what) });
  });

  it('finds a bad key, and names it with the bad character spelled out', () => {
    const d = findBadInput({ payload: { 'k\u0000y': 1 } }, pointer);
    expect(d).toMatchObject({ field: '/payload/k\\u0000y', issue: 'invalid_character' });
    expect(d?.field).not.toContain(String.fromCharCode(0));
    expect(findBadInput({ ['\ud800']: 1 }, pointer)).toMatchObject({ field: '/\\ud800', issue: 'invalid_character' });
  });

  it(`allows ${limits.json_depth_max} levels and refuses one more`, () => {
    expect(findBadInput(nested(limits.json_depth_max), pointer)).toBeNull();
    expect(findBadInput(nested(limits.json_depth_max + 1), pointer)).toMatchObject({ issue: 'too_deep' });
    expect(findBadInput([[[1]]], pointer, 3)).toBeNull();
    expect(findBadInput([[[[1]]]], pointer, 3)).toMatchObject({ field: '/0/0/0', issue: 'too_deep' });
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(findBadInput(v, pointer)).toMatchObject({ issue: 'too_deep' });
  });
});

describe('checkInput', () => {
  let served: Served;
  beforeAll(async () => {
    const router = new Router();
    const echo = async (ctx: any) => {
      ctx.body = { ok: true };
    };
    router.get('/things/:id', checkInput({ hasBody: false }), echo);
    router.post('/things', parseJson, checkInput({ hasBody: true }), echo);
    const app = appOf();
    app.use(router.routes());
    served = await serve(app);
  });
  afterAll(() => served.close());

  const expect400 = async (r: Response, field: string, issue: string) => {
    expect(r.status).toBe(400);
    expect((await json(r)).error).toMatchObject({ code: 'validation_failed', details: [{ field, issue }] });
  };

  it('lets clean input through', async () => {
    expect((await served.call('/things/abc?q=%C3%A9&n=1')).status).toBe(200);
    expect((await served.call('/things', { method: 'POST', json: { a: 'é😀' } })).status).toBe(200);
  });

  it('refuses NUL in a path parameter, a query value and a query key', async () => {
    await expect400(await served.call('/things/a%00'), 'id', 'invalid_character');
    await expect400(await served.call('/things/a?processor=%00'), 'processor', 'invalid_character');
    await expect400(await served.call('/things/a?x%00=1'), 'x\\u0000', 'invalid_character');
  });

  it('refuses percent-encoded bytes that are not UTF-8 in query and path', async () => {
    await expect400(await served.call('/things/a?processor=%FF'), 'processor', 'invalid_encoding');
    await expect400(await served.call('/things/a?processor=%ED%A0%80'), 'processor', 'invalid_encoding'); // an encoded surrogate
    await expect400(await served.call('/things/%C3'), 'path', 'invalid_encoding');
  });

  it('refuses NUL and lone surrogates in body strings and keys', async () => {
    const post = (text: string) => served.call('/things', { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
    await expect400(await post('{"external_customer_id":"a\\u0000"}'), '/external_customer_id', 'invalid_character');
    await expect400(await post('{"id":"x\\ud800"}'), '/id', 'invalid_character');
    await expect400(await post('{"id":"x\\udfff"}'), '/id', 'invalid_character');
    await expect400(await post('{"payload":{"a\\u0000b":1}}'), '/payload/a\\u0000b', 'invalid_character');
    await expect400(await post('{"payload":{"\\ud800":1}}'), '/payload/\\ud800', 'invalid_character');
  });

  it('refuses raw bytes that are not UTF-8 in a JSON body instead of replacing them', async () => {
    const bytes = Buffer.concat([Buffer.from('{"id":"x'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    await expect400(await served.call('/things', { method: 'POST', body: bytes, headers: { 'content-type': 'application/json' } }), '/', 'invalid_encoding');
    const surrogateBytes = Buffer.concat([Buffer.from('{"id":"x'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);
    await expect400(await served.call('/things', { method: 'POST', body: surrogateBytes, headers: { 'content-type': 'application/json' } }), '/', 'invalid_encoding');
  });

  it('refuses a body nested deeper than the limit, 5,000 levels included, with 400', async () => {
    const deep = (n: number) => served.call('/things', { method: 'POST', body: `{"payload":${'['.repeat(n)}${']'.repeat(n)}}`, headers: { 'content-type': 'application/json' } });
    expect((await deep(limits.json_depth_max - 1)).status).toBe(200);
    await expect400(await deep(limits.json_depth_max), `/payload${'/0'.repeat(limits.json_depth_max - 1)}`, 'too_deep');
    expect((await deep(5000)).status).toBe(400);
  });
});
