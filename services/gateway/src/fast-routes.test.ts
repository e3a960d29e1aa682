import Koa from 'koa';
import Router from '@koa/router';
import { ROUTES } from '@acct/contracts';
import { fastRoutes } from './fast-routes';
import { json, serve, type Served } from './testing/fakes';

/** Each route answers which route it is, with the params it got and the router's own fields. */
function routerOfAll(): Router {
  const router = new Router();
  for (const r of ROUTES) {
    router.register(
      r.path.replace(/\{([^}]+)\}/g, ':$1'),
      [r.method],
      [
        async (ctx, next) => {
          ctx.set('X-Step', 'first');
          await next();
        },
        async (ctx) => {
          const c = ctx as unknown as { params: unknown; _matchedRoute: unknown; routerPath: unknown; request: { params: unknown } };
          ctx.body = { route: `${r.method} ${r.path}`, params: c.params, matched: c._matchedRoute, routerPath: c.routerPath, requestParams: c.request.params };
        },
      ],
    );
  }
  return router;
}

function appWith(mw: (router: Router) => Koa.Middleware): Koa {
  const app = new Koa();
  app.silent = true;
  const router = routerOfAll();
  app.use(mw(router));
  app.use(router.allowedMethods());
  app.use(async (ctx) => {
    ctx.status = 404;
    ctx.body = { unmatched: ctx.path };
  });
  return app;
}

const ID = '6f1d1c7e-3f43-4a5e-9a39-2bb9b1d1b1a1';

describe('fastRoutes', () => {
  let fast: Served;
  let plain: Served;

  beforeAll(async () => {
    fast = await serve(appWith((r) => fastRoutes(r) as unknown as Koa.Middleware));
    plain = await serve(appWith((r) => r.routes() as unknown as Koa.Middleware));
  });
  afterAll(async () => {
    await fast.close();
    await plain.close();
  });

  // Every route's own path with ids filled in, and the near misses a client may send.
  const paths = [
    ...new Set(
      ROUTES.flatMap((r) => {
        const p = r.path.replace(/\{[^}]+\}/g, ID);
        return [p, `${p}/`, p.toUpperCase(), `${p}x`, `${p}/x`, p.replace(ID, 'a%20b%ZZ'), p.replace(ID, 'caf%C3%A9')];
      }),
    ),
    '/',
    '/api',
    '/api/v1',
    '/api/v1/',
    '/api/v1//invoices',
    '/api/v1/nothing',
    '/api/v1/invoices//post',
    '/portal',
    '/developers/',
  ];
  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

  it('answers every path and method as the router does', async () => {
    const differ: string[] = [];
    for (const path of paths) {
      for (const method of methods) {
        const [a, b] = await Promise.all([fast.call(path, { method }), plain.call(path, { method })]);
        const [ta, tb] = await Promise.all([a.text(), b.text()]);
        const same = a.status === b.status && ta === tb && a.headers.get('allow') === b.headers.get('allow') && a.headers.get('x-step') === b.headers.get('x-step');
        if (!same) differ.push(`${method} ${path}: ${a.status} ${ta} vs ${b.status} ${tb}`);
      }
    }
    expect(differ).toEqual([]);
  });

  it('hands the route its decoded params', async () => {
    const r = await fast.call('/api/v1/invoices/caf%C3%A9');
    expect(await json(r)).toMatchObject({ route: 'GET /api/v1/invoices/{id}', params: { id: 'café' }, requestParams: { id: 'café' }, matched: '/api/v1/invoices/:id' });
  });

  it('leaves only what no route takes to the router', async () => {
    const router = routerOfAll();
    const match = jest.spyOn(router, 'match');
    const app = new Koa();
    app.silent = true;
    app.use(fastRoutes(router) as unknown as Koa.Middleware);
    const s = await serve(app);
    try {
      expect((await s.call(`/api/v1/invoices/${ID}`)).status).toBe(200);
      expect((await s.call('/developers')).status).toBe(200);
      expect(match).not.toHaveBeenCalled();
      expect((await s.call('/api/v1/nothing')).status).toBe(404);
      expect(match).toHaveBeenCalledTimes(1);
    } finally {
      await s.close();
    }
  });
});
