import { AppError } from '@acct/contracts';
import { appOf, json, serve, type Served } from '../testing/fakes';
import type { Middleware } from './state';

describe('errors', () => {
  let served: Served;
  const throwing: Record<string, () => unknown> = {
    '/app-error': () => {
      throw AppError.validation('Bad.', [{ field: '/x', issue: 'invalid_type', message: 'no' }]);
    },
    '/with-status': () => {
      throw new AppError('validation_failed', 'Too big.', [], 413);
    },
    '/unavailable-error': () => {
      throw new AppError('service_unavailable', 'Later.');
    },
    '/db-gone': () => {
      throw Object.assign(new Error('database "x" does not exist'), { code: '3D000' });
    },
    '/bug': () => {
      throw new TypeError('cannot read properties of undefined');
    },
  };
  const handler: Middleware = async (ctx) => {
    if (ctx.path === '/own-404') {
      ctx.status = 404;
      ctx.body = { mine: true };
      return;
    }
    throwing[ctx.path]?.();
  };

  beforeAll(async () => (served = await serve(appOf(handler))));
  afterAll(() => served.close());

  it('renders an AppError with its status, code, details and the request id', async () => {
    const r = await served.call('/app-error');
    expect(r.status).toBe(400);
    expect(await json(r)).toEqual({
      error: { code: 'validation_failed', message: 'Bad.', details: [{ field: '/x', issue: 'invalid_type', message: 'no' }], request_id: 'req-test' },
    });
  });

  it('keeps the status an AppError chose', async () => {
    expect((await served.call('/with-status')).status).toBe(413);
  });

  it('adds Retry-After to service_unavailable', async () => {
    const r = await served.call('/unavailable-error');
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('1');
  });

  it('answers 503 service_unavailable when the database is out of reach', async () => {
    const r = await served.call('/db-gone');
    expect(r.status).toBe(503);
    expect((await json(r)).error).toMatchObject({ code: 'service_unavailable', message: 'The gateway cannot reach its database. Retry later.' });
  });

  it('answers 500 internal_error without the cause for anything else', async () => {
    const r = await served.call('/bug');
    expect(r.status).toBe(500);
    const e = (await json(r)).error;
    expect(e).toEqual({ code: 'internal_error', message: 'An unexpected error occurred.', details: [], request_id: 'req-test' });
  });

  it('answers a request nothing handled with 404 not_found in the envelope', async () => {
    const r = await served.call('/nowhere', { method: 'DELETE' });
    expect(r.status).toBe(404);
    expect((await json(r)).error).toMatchObject({ code: 'not_found', message: 'There is no route DELETE /nowhere.', request_id: 'req-test' });
  });

  it('leaves a 404 that has a body alone', async () => {
    const r = await served.call('/own-404');
    expect(r.status).toBe(404);
    expect(await json(r)).toEqual({ mine: true });
  });
});
