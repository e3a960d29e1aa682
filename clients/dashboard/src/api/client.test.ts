import { api, setCsrfToken, setUnauthorizedHandler } from './client';
import { ApiError, describeError, errorFromResponse, networkError } from './errors';
import { writeScope } from './scope';

describe('errors of the dashboard API', () => {
  it('reads the envelope: code, message, request id, details', () => {
    const e = errorFromResponse(422, {
      error: { code: 'validation_failed', message: 'The body is invalid.', request_id: 'req_1', details: [{ field: '/url', issue: 'format', message: 'must be https' }] },
    });
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.code, e.message, e.requestId]).toEqual([422, 'validation_failed', 'The body is invalid.', 'req_1']);
    expect(describeError(e)).toBe('The body is invalid. /url: must be https. (request id req_1)');
  });

  it('falls back to a plain sentence by status when there is no envelope, with the Request-Id header', () => {
    const e = errorFromResponse(429, '<html>busy</html>', 'req_h');
    expect([e.code, e.message, e.requestId]).toEqual(['rate_limited', 'Too many requests. Wait a moment and try again.', 'req_h']);
    expect(errorFromResponse(502, null).code).toBe('internal_error');
    expect(errorFromResponse(418, {}).message).toBe('The request failed (418).');
    expect(describeError(errorFromResponse(403, { error: { code: 'forbidden', message: 'No.' } }))).toBe('No.');
  });

  it('says when the server could not be reached', () => {
    const e = networkError(new TypeError('fetch failed'));
    expect([e.status, e.code]).toEqual([0, 'network_error']);
    expect(describeError(e)).toBe('The server could not be reached (fetch failed).');
    expect(describeError(new Error('plain'))).toBe('plain');
  });
});

describe('requests of the dashboard API', () => {
  const calls: { url: string; init: RequestInit }[] = [];
  let answer: () => Response;
  beforeEach(() => {
    calls.length = 0;
    global.fetch = ((url: string, init: RequestInit) => {
      calls.push({ url, init });
      return Promise.resolve(answer());
    }) as typeof fetch;
    setCsrfToken('csrf-1');
    writeScope({ environment: 'live', app: 'app_9' });
  });
  const headers = (i: number) => calls[i]!.init.headers as Record<string, string>;

  it('sends the scope on every request and the CSRF token on all but GET', async () => {
    answer = () => new Response(JSON.stringify({ data: [], pagination: { has_more: false } }), { status: 200 });
    await api.get('/v1/customers', { limit: 25, 'created[gte]': '2026-01-01', starting_after: undefined });
    expect(calls[0]!.url).toBe('/dashboard/api/v1/customers?limit=25&created%5Bgte%5D=2026-01-01');
    expect(calls[0]!.init.credentials).toBe('same-origin');
    expect(headers(0)['Dashboard-Environment']).toBe('live');
    expect(headers(0)['Dashboard-App']).toBe('app_9');
    expect(headers(0)['CSRF-Token']).toBeUndefined();
    answer = () => new Response(null, { status: 204 });
    await api.del('/session');
    expect(headers(1)['CSRF-Token']).toBe('csrf-1');
    await api.post('/apps/a/keys', {});
    expect(headers(2)['CSRF-Token']).toBe('csrf-1');
    expect(headers(2)['Content-Type']).toBe('application/json');
    expect(calls[2]!.init.body).toBe('{}');
  });

  it('throws the envelope as ApiError, and a 401 signals the end of the session (unless quiet)', async () => {
    const ended = jest.fn();
    setUnauthorizedHandler(ended);
    answer = () => new Response(JSON.stringify({ error: { code: 'unauthorized', message: 'Sign in.', request_id: 'req_2' } }), { status: 401 });
    await expect(api.get('/members')).rejects.toMatchObject({ status: 401, code: 'unauthorized', requestId: 'req_2' });
    expect(ended).toHaveBeenCalledTimes(1);
    await expect(api.post('/session', { email: 'a@b.c', password: 'x' }, { quiet401: true })).rejects.toMatchObject({ status: 401 });
    expect(ended).toHaveBeenCalledTimes(1);
    setUnauthorizedHandler(null);
  });

  it('turns a failed fetch into a network error', async () => {
    global.fetch = () => Promise.reject(new TypeError('fetch failed'));
    await expect(api.get('/session')).rejects.toMatchObject({ code: 'network_error' });
  });
});
