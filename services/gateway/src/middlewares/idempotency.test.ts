import type { RouteDef } from '@acct/contracts';
import { appOf, fakeIdempotency, json, serve, testMetrics, valueOf, withPrincipal, type Served } from '../testing/fakes';
import { idempotency } from './idempotency';
import type { Middleware } from './state';

describe('idempotency', () => {
  const records = fakeIdempotency();
  const metrics = testMetrics();
  let runs = 0;
  let answer: Middleware;
  const servers: Served[] = [];
  const serveRoute = async (over: Partial<RouteDef> = {}) => {
    const route = { operationId: 'x', method: 'POST', path: '/x', ...over } as RouteDef;
    const s = await serve(
      appOf(
        withPrincipal(),
        async (ctx, next) => {
          ctx.state.body = ctx.get('x-body');
          await next();
        },
        idempotency(route, { records, metrics }),
        async (ctx, next) => {
          runs++;
          await answer(ctx, next);
        },
      ),
    );
    servers.push(s);
    return s;
  };
  let served: Served;
  const post = (key: string, body = 'b', headers: Record<string, string> = {}) =>
    served.call('/x', { method: 'POST', headers: { 'idempotency-key': key, 'x-body': body, ...headers } });

  beforeAll(async () => (served = await serveRoute()));
  afterEach(() => jest.restoreAllMocks());
  beforeEach(() => {
    runs = 0;
    answer = async (ctx) => {
      ctx.status = 201;
      ctx.body = { data: { n: runs } };
    };
  });
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it('runs a request without a key every time, and keeps no record of it', async () => {
    const before = records.records.size;
    await served.call('/x', { method: 'POST' });
    await served.call('/x', { method: 'POST' });
    expect(runs).toBe(2);
    expect(records.records.size).toBe(before);
  });

  it('replays the first answer with Idempotent-Replayed, without running again', async () => {
    const first = await post('k1');
    const second = await post('k1');
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(second)).toEqual(await json(first));
    expect(runs).toBe(1);
    expect(await valueOf(metrics.idempotentReplays)).toBe(1);
  });

  it('replays a 204 without a body', async () => {
    answer = async (ctx) => {
      ctx.status = 204;
      ctx.body = null;
    };
    await post('k-204');
    const r = await post('k-204');
    expect(r.status).toBe(204);
    expect(r.headers.get('idempotent-replayed')).toBe('true');
    expect(await r.text()).toBe('');
    expect(runs).toBe(1);
  });

  it('keeps an Idempotent-Replayed header of the first answer', async () => {
    answer = async (ctx) => {
      ctx.body = { data: {} };
      ctx.set('Idempotent-Replayed', 'true');
    };
    await post('k-own-replay');
    expect(records.records.get('key-1/k-own-replay')!.headers).toEqual({ 'Idempotent-Replayed': 'true' });
  });

  it('refuses the key with another body with 409 reused_with_different_request', async () => {
    await post('k2', 'one');
    const r = await post('k2', 'two');
    expect(r.status).toBe(409);
    expect((await json(r)).error.details[0].issue).toBe('reused_with_different_request');
  });

  it('sends a repeat while its first is in flight on to the service, with the key and fingerprint, and keeps nothing of it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const firstEntered = new Promise<void>((r) => (entered = r));
    const fingerprints: Array<string | undefined> = [];
    answer = async (ctx) => {
      const n = fingerprints.push(ctx.state.idempotencyFingerprint);
      if (n === 1) {
        entered();
        await gate;
      }
      ctx.body = { n };
    };
    const first = post('k3');
    await firstEntered; // the first holds the key, in flight
    const second = await post('k3');
    expect(second.status).toBe(200);
    expect(fingerprints).toHaveLength(2);
    expect(fingerprints[1]).toBe(fingerprints[0]);
    expect(fingerprints[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(records.records.get('key-1/k3')!.status).toBeUndefined(); // the second recorded nothing
    release();
    expect(await json(await first)).toEqual({ n: 1 });
    expect(records.records.get('key-1/k3')!.body).toBe('{"n":1}');
  });

  it('sends the request on when its record cannot be read (the gateway database down)', async () => {
    const down = jest.spyOn(records, 'begin').mockRejectedValue(new Error('connection refused'));
    expect((await post('k-down')).status).toBe(201);
    down.mockRestore();
    expect(runs).toBe(1);
    expect(records.records.has('key-1/k-down')).toBe(false);
  });

  const created: Middleware = async (ctx) => {
    ctx.status = 201;
    ctx.body = {};
  };
  const failing: Middleware = async () => {
    throw new Error('boom');
  };
  const inFlight: Middleware = async (ctx) => {
    ctx.status = 409;
    ctx.body = { error: { code: 'conflict', message: 'still running', details: [{ field: 'Idempotency-Key', issue: 'in_flight', message: '' }] } };
  };
  it.each([
    ['a 5xx answer so that a retry runs again', 'k4', failing, 500],
    ["the service's 409 in_flight (its first run is not over) so that a retry asks again", 'k-in-flight', inFlight, 409],
  ] as const)('forgets %s', async (_what, key, first, status) => {
    answer = first;
    expect((await post(key)).status).toBe(status);
    expect(records.records.has(`key-1/${key}`)).toBe(false);
    answer = created;
    expect((await post(key)).status).toBe(201);
    expect(runs).toBe(2);
  });

  it('keeps a 4xx answer and replays it with the replay’s own request id', async () => {
    answer = async () => {
      const { AppError } = await import('@acct/contracts');
      throw AppError.conflict('taken');
    };
    const a = await post('k5');
    expect(a.status).toBe(409);
    expect(JSON.parse(records.records.get('key-1/k5')!.body!).error.request_id).toBeUndefined();
    const b = await post('k5');
    expect(b.status).toBe(409);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect((await json(b)).error).toMatchObject({ code: 'conflict', request_id: 'req-test' });
    expect(runs).toBe(1);
  });

  it('answers with the work done when recording the answer fails', async () => {
    const lost = jest.spyOn(records, 'complete').mockRejectedValue(new Error('connection lost'));
    expect((await post('k6')).status).toBe(201);
    expect(lost).toHaveBeenCalled();
    lost.mockRestore();
  });

  it('refuses a key over 255 characters with 400, also on a route with its own dedupe', async () => {
    const own = await serveRoute({ ownIdempotency: true });
    for (const s of [served, own]) {
      const r = await s.call('/x', { method: 'POST', headers: { 'idempotency-key': 'x'.repeat(256) } });
      expect(r.status).toBe(400);
      expect((await json(r)).error.details[0]).toMatchObject({ field: 'Idempotency-Key', issue: 'too_long' });
    }
    expect(runs).toBe(0);
  });

  it('leaves a route with its own dedupe alone', async () => {
    const own = await serveRoute({ ownIdempotency: true });
    await own.call('/x', { method: 'POST', headers: { 'idempotency-key': 'k7' } });
    await own.call('/x', { method: 'POST', headers: { 'idempotency-key': 'k7' } });
    expect(runs).toBe(2);
    expect(records.records.has('key-1/k7')).toBe(false);
  });

  it('ignores the key on anything but POST and PATCH', async () => {
    const put = await serveRoute({ method: 'PUT' });
    await put.call('/x', { method: 'PUT', headers: { 'idempotency-key': 'k8' } });
    await put.call('/x', { method: 'PUT', headers: { 'idempotency-key': 'k8' } });
    expect(runs).toBe(2);
  });

  it('keeps and replays the first answer of a PATCH as of a POST', async () => {
    const patch = await serveRoute({ method: 'PATCH' });
    answer = async (ctx) => {
      ctx.status = 200;
      ctx.body = { data: { n: runs } };
    };
    const first = await patch.call('/x', { method: 'PATCH', headers: { 'idempotency-key': 'k9', 'x-body': 'b' } });
    const again = await patch.call('/x', { method: 'PATCH', headers: { 'idempotency-key': 'k9', 'x-body': 'b' } });
    expect(runs).toBe(1);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again)).toEqual(await json(first));
    expect((await patch.call('/x', { method: 'PATCH', headers: { 'idempotency-key': 'k9', 'x-body': 'other' } })).status).toBe(409);
  });
});
