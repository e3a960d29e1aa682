import { ApiError, Client, ConflictError, ConnectionError, InvalidRequestError, NotFoundError, RateLimitError, ServerError, retryAfterMs } from './index';

/** A fetch that answers from a script and records what it was sent. */
function fakeFetch(answers: Array<Response | Error | ((req: Request) => Response)>) {
  const seen: { method: string; url: string; headers: Headers; body: string }[] = [];
  const fetch = async (req: Request): Promise<Response> => {
    seen.push({ method: req.method, url: req.url, headers: req.headers, body: await req.text() });
    const next = answers.shift();
    if (next === undefined) throw new Error('fake fetch: no answer left');
    if (next instanceof Error) throw next;
    return typeof next === 'function' ? next(req) : next;
  };
  return { fetch, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const errorBody = (code: string, message = code, details?: unknown) => ({ error: { code, message, details, request_id: 'req_123' } });
const customer = (id: string) => ({ id, external_customer_id: `ext-${id}`, name: `C ${id}` });

function setup(answers: Parameters<typeof fakeFetch>[0], maxRetries?: number) {
  const f = fakeFetch(answers);
  const sleeps: number[] = [];
  const client = new Client({
    apiKey: 'svc_test_abc',
    baseUrl: 'https://api.example.test/',
    fetch: f.fetch,
    maxRetries,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  });
  return { client, seen: f.seen, sleeps };
}

describe('Client', () => {
  it('sends the key as a Bearer token and resolves with the success body', async () => {
    const { client, seen } = setup([json(200, { data: customer('c1') })]);
    const got = await client.GET('/api/v1/customers/{id}', { params: { path: { id: 'c1' } } });
    expect(got.data.id).toBe('c1');
    expect(seen[0]!.url).toBe('https://api.example.test/api/v1/customers/c1');
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer svc_test_abc');
    expect(seen[0]!.headers.get('idempotency-key')).toBeNull();
  });

  it('puts a random Idempotency-Key on every POST and PATCH, the same on each retry', async () => {
    const { client, seen, sleeps } = setup([
      json(503, errorBody('service_unavailable')),
      new TypeError('fetch failed'),
      json(201, { data: customer('c1') }),
      json(200, { data: customer('c1') }),
    ]);
    await client.POST('/api/v1/customers', { body: { external_customer_id: 'x', name: 'Ada' } });
    expect(seen).toHaveLength(3);
    const key = seen[0]!.headers.get('idempotency-key');
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(seen.map((s) => s.headers.get('idempotency-key'))).toEqual([key, key, key]);
    expect(seen.map((s) => s.body)).toEqual(Array(3).fill(JSON.stringify({ external_customer_id: 'x', name: 'Ada' })));
    expect(sleeps).toHaveLength(2);
    await client.PATCH('/api/v1/customers/{id}', { params: { path: { id: 'c1' } }, body: { name: 'B' } });
    expect(seen[3]!.headers.get('idempotency-key')).not.toBe(key);
  });

  it("keeps the caller's Idempotency-Key (option or header)", async () => {
    const { client, seen } = setup([json(429, errorBody('rate_limited')), json(201, { data: customer('c1') }), json(201, { data: customer('c2') })]);
    await client.POST('/api/v1/customers', { body: { external_customer_id: 'x', name: 'Ada' }, idempotencyKey: 'mine-1' });
    await client.POST('/api/v1/customers', { body: { external_customer_id: 'y', name: 'Bo' }, headers: { 'Idempotency-Key': 'mine-2' } });
    expect(seen.map((s) => s.headers.get('idempotency-key'))).toEqual(['mine-1', 'mine-1', 'mine-2']);
  });

  it('honours Retry-After (seconds and HTTP date) and backs off exponentially without it', async () => {
    const { client, sleeps } = setup([json(429, errorBody('rate_limited'), { 'retry-after': '3' }), json(503, errorBody('x')), json(200, { data: customer('c1') })]);
    await client.GET('/api/v1/customers/{id}', { params: { path: { id: 'c1' } } });
    expect(sleeps[0]).toBe(3000);
    // Second retry: jittered within [half, all] of 500 × 2.
    expect(sleeps[1]).toBeGreaterThanOrEqual(500);
    expect(sleeps[1]).toBeLessThanOrEqual(1000);
    expect(retryAfterMs('1.5')).toBe(1500);
    expect(retryAfterMs(new Date(Date.now() + 10_000).toUTCString())).toBeGreaterThan(8000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });

  it('gives up after maxRetries and throws the typed error of the last answer', async () => {
    const { client, seen } = setup([json(429, errorBody('rate_limited')), json(429, errorBody('rate_limited')), json(429, errorBody('rate_limited', 'slow down'))]);
    const e = await client.GET('/api/v1/customers').catch((x: unknown) => x);
    expect(seen).toHaveLength(3);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).toMatchObject({ status: 429, code: 'rate_limited', message: 'slow down', request_id: 'req_123' });
  });

  it('does not retry other statuses; maxRetries 0 turns retrying off', async () => {
    const a = setup([json(500, errorBody('internal'))]);
    await expect(a.client.GET('/api/v1/customers')).rejects.toBeInstanceOf(ServerError);
    expect(a.seen).toHaveLength(1);
    const b = setup([new TypeError('fetch failed')], 0);
    const e = await b.client.GET('/api/v1/customers').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect((e as ConnectionError).cause).toBeInstanceOf(TypeError);
  });

  it('types errors by status with code, message, request_id and details', async () => {
    const details = [{ field: '/name', issue: 'invalid_type', message: '/name must be string.' }];
    const { client } = setup([
      json(404, errorBody('not_found', 'customer not found')),
      json(409, errorBody('conflict', 'differs')),
      json(400, errorBody('validation_failed', 'bad', details)),
      new Response('gateway down', { status: 502, headers: { 'request-id': 'req_h' } }),
    ]);
    const get = () => client.GET('/api/v1/customers/{id}', { params: { path: { id: 'c1' } } }).catch((x: unknown) => x);
    const nf = await get();
    expect(nf).toBeInstanceOf(NotFoundError);
    expect(nf).toBeInstanceOf(ApiError);
    expect(nf).toMatchObject({ status: 404, code: 'not_found', message: 'customer not found', request_id: 'req_123', name: 'NotFoundError' });
    expect(await get()).toBeInstanceOf(ConflictError);
    const v = await get();
    expect(v).toBeInstanceOf(InvalidRequestError);
    expect((v as ApiError).details).toEqual(details);
    const s = await get();
    expect(s).toBeInstanceOf(ServerError);
    expect(s).toMatchObject({ status: 502, code: 'http_502', request_id: 'req_h' });
  });

  it('walks every page of a list with starting_after, keeping the filters', async () => {
    const page = (ids: string[], has_more: boolean) =>
      json(200, { data: ids.map(customer), customers: ids.map(customer), pagination: { limit: 2, offset: 0, count: ids.length, has_more } });
    const { client, seen } = setup([page(['a', 'b'], true), page(['c', 'd'], true), page(['e'], false)]);
    const got: string[] = [];
    for await (const c of client.list('/api/v1/customers', { limit: 2, external_customer_id: 'x' })) got.push(c.id);
    expect(got).toEqual(['a', 'b', 'c', 'd', 'e']);
    const queries = seen.map((s) => Object.fromEntries(new URL(s.url).searchParams));
    expect(queries).toEqual([
      { limit: '2', external_customer_id: 'x' },
      { limit: '2', external_customer_id: 'x', starting_after: 'b' },
      { limit: '2', external_customer_id: 'x', starting_after: 'd' },
    ]);
  });

  it('walks backward from ending_before: nearest to the cursor first, then ending_before the first of each page', async () => {
    const page = (ids: string[], has_more: boolean) => json(200, { data: ids.map(customer), pagination: { limit: 2, offset: 0, count: ids.length, has_more } });
    // The list is newest first: z y x w v u; before cursor u the server answers the two just above it, in list order.
    const { client, seen } = setup([page(['w', 'v'], true), page(['y', 'x'], true), page(['z'], false)]);
    const got: string[] = [];
    for await (const c of client.list('/api/v1/customers', { limit: 2, ending_before: 'u' })) got.push(c.id);
    expect(got).toEqual(['v', 'w', 'x', 'y', 'z']);
    expect(seen.map((s) => Object.fromEntries(new URL(s.url).searchParams))).toEqual([
      { limit: '2', ending_before: 'u' },
      { limit: '2', ending_before: 'w' },
      { limit: '2', ending_before: 'y' },
    ]);
  });

  it('starts forward after a given starting_after', async () => {
    const page = (ids: string[], has_more: boolean) => json(200, { data: ids.map(customer), pagination: { limit: 2, offset: 0, count: ids.length, has_more } });
    const { client, seen } = setup([page(['c', 'd'], true), page(['e'], false)]);
    const got: string[] = [];
    for await (const c of client.list('/api/v1/customers', { limit: 2, starting_after: 'b' })) got.push(c.id);
    expect(got).toEqual(['c', 'd', 'e']);
    expect(seen.map((s) => new URL(s.url).searchParams.get('starting_after'))).toEqual(['b', 'd']);
  });

  it('stops a list early when the caller breaks, and surfaces a page error', async () => {
    const page = json(200, { data: [customer('a'), customer('b')], pagination: { limit: 2, offset: 0, count: 2, has_more: true } });
    const a = setup([page]);
    for await (const c of a.client.list('/api/v1/customers')) if (c.id === 'a') break;
    expect(a.seen).toHaveLength(1);
    const b = setup([json(400, errorBody('validation_failed'))]);
    const it = b.client.list('/api/v1/customers', { limit: 2 });
    await expect(it.next()).rejects.toBeInstanceOf(InvalidRequestError);
  });

  it('exposes webhooks.verify and refuses a missing key', () => {
    expect(typeof setup([]).client.webhooks.verify).toBe('function');
    expect(() => new Client({ apiKey: '' })).toThrow(TypeError);
  });
});
