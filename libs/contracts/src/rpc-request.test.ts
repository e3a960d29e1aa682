import { randomUUID } from 'node:crypto';
import { RPC_CATALOGUE, type RpcOperation } from './rpc-catalogue';
import { rpcRequestProblem } from './rpc-request';

const ctx = () => ({ organizationId: randomUUID(), connectedAppId: randomUUID(), environment: 'test', apiKeyId: randomUUID(), requestId: randomUUID() });

describe('rpcRequestProblem: a request off the bus, checked like the route at the gateway', () => {
  it('takes what the gateway sends, lower-casing ids and the organization', () => {
    const id = randomUUID();
    const c = { ...ctx(), organizationId: randomUUID().toUpperCase() };
    const req = { ctx: c, params: { id: id.toUpperCase() }, query: {}, body: {} };
    expect(rpcRequestProblem('invoices.get', req)).toBeNull();
    expect(req.params.id).toBe(id);
    expect(c.organizationId).toBe(c.organizationId.toLowerCase());
  });

  it('defaults a list query as the gateway does', () => {
    const req = { ctx: ctx(), params: {}, query: {} as Record<string, unknown>, body: {} };
    expect(rpcRequestProblem('customers.list', req)).toBeNull();
    expect(req.query.limit).toEqual(expect.any(Number));
  });

  it.each([
    ['an id spelled urn:uuid:', { params: { id: `urn:uuid:${randomUUID()}` } }, '/id'],
    ['a NUL in an id', { params: { id: `${randomUUID()}\u0000` } }, 'id'],
    ['a lone surrogate in an id', { params: { id: `\ud800${randomUUID()}` } }, 'id'],
    ['an id that is a number', { params: { id: 7 } }, 'id'],
    ['params that are an array', { params: [randomUUID()] }, 'params'],
    ['an unknown query parameter', { query: { nope: '1' } }, 'nope'],
    ['no context', { ctx: undefined }, 'ctx.'],
    ['an organization that is not a uuid', { ctx: { ...ctx(), organizationId: 'acme' } }, 'ctx.organizationId'],
    ['an unknown environment', { ctx: { ...ctx(), environment: 'prod' } }, 'ctx.environment'],
    ['a context member that is not a string', { ctx: { ...ctx(), apiKeyId: { $ne: null } } }, 'ctx.apiKeyId'],
  ])('refuses %s with 400 validation_failed', (_, over, field) => {
    const req = { ctx: ctx(), params: { id: randomUUID() }, query: {}, body: {}, ...over };
    const problem = rpcRequestProblem('invoices.get', req);
    expect(problem?.code).toBe('validation_failed');
    expect(problem?.details.map((d) => d.field).join(' ')).toContain(field.replace(/^\//, ''));
  });

  it('refuses a body its schema refuses, and one nested past the limit, before any schema', () => {
    const base = { ctx: ctx(), params: {}, query: {} };
    expect(rpcRequestProblem('customers.create', { ...base, body: { external_customer_id: 'c-1', name: 7 } })?.details[0]).toMatchObject({ field: '/name' });
    let deep: unknown = 1;
    for (let i = 0; i < 500; i++) deep = [deep];
    expect(rpcRequestProblem('customers.create', { ...base, body: { external_customer_id: 'c-1', name: 'C', metadata: deep } })?.details[0]).toMatchObject({ issue: 'too_deep' });
    expect(rpcRequestProblem('customers.create', { ...base, body: { external_customer_id: 'c-1', name: 'C' } })).toBeNull();
  });

  it('a public operation needs no tenancy, but still a context of strings', () => {
    const publicOps = (Object.keys(RPC_CATALOGUE) as RpcOperation[]).filter((op) => (RPC_CATALOGUE[op] as { public?: true }).public);
    expect(publicOps.length).toBeGreaterThan(0);
    const op = publicOps.find((o) => o === 'processor_hooks.stripe')!;
    const body = { payload_base64: '', signature: null };
    expect(rpcRequestProblem(op, { ctx: { requestId: randomUUID() }, params: { source_id: randomUUID() }, query: {}, body })).toBeNull();
    expect(rpcRequestProblem(op, { ctx: { requestId: 1 }, params: { source_id: randomUUID() }, query: {}, body })?.code).toBe('validation_failed');
  });

  it('leaves an operation outside the catalogue to its handler (a test fake)', () => {
    expect(rpcRequestProblem('no.such_op' as RpcOperation, { anything: true })).toBeNull();
  });

  it('refuses a request that is not an object', () => {
    for (const req of [null, [], 'x', 1]) expect(rpcRequestProblem('invoices.get', req)?.code).toBe('validation_failed');
  });
});
