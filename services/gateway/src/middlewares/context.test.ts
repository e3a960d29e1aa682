import Koa from 'koa';
import { requestContext } from './context';
import { errors } from './errors';
import { type Served, capturedLog, json, serve, testMetrics, valueOf } from '../testing/fakes';

describe('requestContext', () => {
  const { log, lines } = capturedLog('info');
  const metrics = testMetrics();
  let served: Served;

  beforeAll(async () => {
    const app = new Koa();
    app.use(requestContext({ log, metrics }));
    app.use(errors());
    app.use(async (ctx: Koa.Context) => {
      if (ctx.path === '/unmatched') return;
      ctx.state.routePath = '/things/{id}';
      ctx.state.principal = { apiKeyId: 'key-7' };
      ctx.body = { request_id: ctx.state.requestId, in_flight: await valueOf(metrics.httpInFlight) };
    });
    served = await serve(app);
  });
  afterAll(() => served.close());
  beforeEach(() => (lines.length = 0));

  it('keeps a tame X-Request-Id and answers it in Request-Id', async () => {
    const r = await served.call('/things/1', { headers: { 'x-request-id': 'trace-1.2:3' } });
    expect(r.headers.get('request-id')).toBe('trace-1.2:3');
    expect((await json(r)).request_id).toBe('trace-1.2:3');
  });

  it.each([['with spaces'], ['x'.repeat(129)], ['']])('replaces the X-Request-Id %j with a UUID', async (given) => {
    const r = await served.call('/things/1', { headers: given ? { 'x-request-id': given } : {} });
    expect(r.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('counts the request in flight while it runs and not after', async () => {
    const r = await served.call('/things/1');
    expect((await json(r)).in_flight).toBe(1);
    expect(await valueOf(metrics.httpInFlight)).toBe(0);
  });

  it('times the request by method, route template and status, "unmatched" without a route', async () => {
    await served.call('/things/2');
    await served.call('/unmatched');
    const text = await metrics.registry.getSingleMetricAsString('http_request_duration_seconds');
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*method="GET",route="\/things\/\{id\}",status="200"\} \d+/);
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*method="GET",route="unmatched",status="404"\} 1/);
  });

  it('writes the access log line as a child logger would, without making one', async () => {
    const child = jest.spyOn(log, 'child');
    try {
      const r = await served.call('/things/4');
      expect(child).not.toHaveBeenCalled();
      const line = lines.filter((l) => l.msg === 'request').at(-1)!;
      const keys = Object.keys(line);
      expect(keys.slice(keys.indexOf('request_id'))).toEqual(['request_id', 'method', 'route', 'status', 'duration_ms', 'api_key_id', 'msg']);
      expect(line.request_id).toBe(r.headers.get('request-id'));
    } finally {
      child.mockRestore();
    }
  });

  it('writes one access log line with the request id, route, status, duration and key id', async () => {
    const r = await served.call('/things/3');
    const line = lines.find((l) => l.msg === 'request');
    expect(line).toMatchObject({ request_id: r.headers.get('request-id'), method: 'GET', route: '/things/{id}', status: 200, api_key_id: 'key-7' });
    expect(typeof line!.duration_ms).toBe('number');
  });

  describe('at level warn', () => {
    const { log: warnLog, lines: quiet } = capturedLog('warn');
    const child = jest.spyOn(warnLog, 'child');
    let quietServed: Served;

    beforeAll(async () => {
      const app = new Koa();
      app.use(requestContext({ log: warnLog, metrics: testMetrics() }));
      app.use((ctx: Koa.Context) => {
        if (ctx.path === '/warns') ctx.state.log.warn('something odd');
        ctx.body = {};
      });
      quietServed = await serve(app);
    });
    afterAll(() => quietServed.close());
    beforeEach(() => {
      quiet.length = 0;
      child.mockClear();
    });

    it('makes no child logger and writes nothing for a request that logs nothing', async () => {
      await quietServed.call('/quiet');
      expect(child).not.toHaveBeenCalled();
      expect(quiet).toEqual([]);
    });

    it('still tags what a request logs with its request id', async () => {
      const r = await quietServed.call('/warns');
      expect(child).toHaveBeenCalledTimes(1);
      expect(quiet).toEqual([expect.objectContaining({ msg: 'something odd', request_id: r.headers.get('request-id') })]);
    });
  });
});
