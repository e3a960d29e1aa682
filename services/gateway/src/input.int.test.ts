import { json } from './testing/fakes';
import { gatewayBed } from './testing/int-gateway';

/** Bad input the gateway refuses before any service sees it. */
const bed = gatewayBed();
const { gateway, call, received } = bed;

describe('gateway bad input, against real Postgres and NATS', () => {
  const badBodies: Array<[string, unknown, string, string]> = [
    ['a scope field in the body', { external_customer_id: 'e', name: 'n', organization_id: 'x' }, 'trusted_scope_field_not_allowed', '/organization_id'],
    ['environment in the body', { external_customer_id: 'e', name: 'n', environment: 'live' }, 'trusted_scope_field_not_allowed', '/environment'],
    ['an unknown field', { external_customer_id: 'e', name: 'n', nmae: 'typo' }, 'validation_failed', '/nmae'],
    ['a missing required field', { external_customer_id: 'e' }, 'validation_failed', '/name'],
    ['a bad email', { external_customer_id: 'e', name: 'n', email: 'not-an-email' }, 'validation_failed', '/email'],
    ['a too long name', { external_customer_id: 'e', name: 'x'.repeat(201) }, 'validation_failed', '/name'],
    ['a wrong type', { external_customer_id: 7, name: 'n' }, 'validation_failed', '/external_customer_id'],
  ];
  it.each(badBodies)('refuses %s with 400', async (_n, body, code, field) => {
    const { base } = await gateway();
    const r = await call(base, '/api/v1/customers', { key: bed.org.test_key, method: 'POST', json: body });
    expect(r.status).toBe(400);
    const e = (await json(r)).error;
    expect(e.code).toBe(code);
    expect(e.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(received).toHaveLength(0);
  });

  it.each([
    ['?environment=live', 'trusted_scope_field_not_allowed'],
    ['?organization_id=x', 'trusted_scope_field_not_allowed'],
    ['?mode=live', 'trusted_scope_field_not_allowed'],
    ['?limit=0', 'validation_failed'],
    ['?limit=101', 'validation_failed'],
    ['?limit=abc', 'validation_failed'],
    ['?offset=-1', 'validation_failed'],
    ['?offset=100001', 'validation_failed'],
    ['?limit=1&limit=2', 'validation_failed'],
    ['?colour=red', 'validation_failed'],
  ])('refuses the query %s with 400 %s', async (qs, code) => {
    const { base } = await gateway();
    const r = await call(base, `/api/v1/customers${qs}`, { key: bed.org.test_key });
    expect(r.status).toBe(400);
    expect((await json(r)).error.code).toBe(code);
  });

  it('refuses malformed JSON, a non-object body, a wrong content type and an oversized body', async () => {
    const { base } = await gateway();
    const post = (body: string, type = 'application/json') => call(base, '/api/v1/customers', { key: bed.org.test_key, method: 'POST', body, headers: { 'content-type': type } });
    let r = await post('{"external_customer_id":');
    expect(r.status).toBe(400);
    expect((await json(r)).error).toMatchObject({ code: 'validation_failed', details: [{ issue: 'malformed_json' }] });
    r = await post('[1,2]');
    expect(r.status).toBe(400);
    r = await post('name=x', 'application/x-www-form-urlencoded');
    expect(r.status).toBe(415);
    expect((await json(r)).error.code).toBe('validation_failed');
    r = await post(JSON.stringify({ external_customer_id: 'e', name: 'x'.repeat(1024 * 1024 + 10) }));
    expect(r.status).toBe(413);
    expect((await json(r)).error.code).toBe('validation_failed');
    expect(received).toHaveLength(0);
  });

  it('refuses a bad uuid in the path with 400', async () => {
    const { base } = await gateway();
    const r = await call(base, '/api/v1/customers/not-a-uuid', { key: bed.org.test_key });
    expect(r.status).toBe(400);
    expect((await json(r)).error.details[0]).toMatchObject({ field: 'id', issue: 'invalid_format' });
  });

  it('answers an unknown route with 404 in the envelope', async () => {
    const { base } = await gateway();
    for (const [method, path] of [
      ['GET', '/api/v1/nothing'],
      ['GET', '/'],
    ] as const) {
      const r = await call(base, path, { method, key: bed.org.test_key });
      expect(r.status).toBe(404);
      const body = await json(r);
      expect(body.error.code).toBe('not_found');
      expect(body.error.request_id).toBeTruthy();
    }
  });

  it('answers a method the path lacks with 405 and Allow, in the envelope', async () => {
    const { base } = await gateway();
    const r = await call(base, '/api/v1/customers', { method: 'DELETE', key: bed.org.test_key });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')?.split(/,\s*/).sort()).toEqual(expect.arrayContaining(['GET', 'POST']));
    const body = await json(r);
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.request_id).toBeTruthy();
  });
});
