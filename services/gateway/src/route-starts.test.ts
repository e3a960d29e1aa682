import Koa from 'koa';
import Router from '@koa/router';
import { ROUTES } from '@acct/contracts';
import { routersByStart, startRouterOf } from './routing';
import type { Middleware } from './middlewares/state';

/**
 * The gateway sends a request to the router of its path's literal start (routersByStart): it must
 * match exactly what the router of every route would, for every route's paths in other spellings
 * and for paths that match nothing.
 */
describe('routers by literal start', () => {
  const koaPath = (p: string) => p.replace(/\{([^}]+)\}/g, ':$1');
  /** The route a router chose, its params, and every layer whose path matched (what allowedMethods reads). */
  type Seen = { route?: string; params?: Record<string, string>; matched: string[]; status: number };
  const full = new Router();
  const chainOf =
    (path: string, method: string): Middleware =>
    async (ctx) => {
      ctx.state.seen = { route: `${method} ${path}`, params: { ...ctx.params } };
      await Promise.resolve();
    };
  for (const r of ROUTES) full.register(koaPath(r.path), [r.method], chainOf(r.path, r.method));
  const byStart = routersByStart(ROUTES.map((r) => ({ path: r.path, register: (x: Router) => x.register(koaPath(r.path), [r.method], chainOf(r.path, r.method)) })));
  const everyRoute = full.routes() as unknown as Middleware;

  async function seen(dispatch: Middleware, method: string, path: string): Promise<Seen> {
    const app = new Koa();
    const ctx = app.createContext(Object.assign(Object.create(null) as object, { method, url: path, headers: {}, socket: {} }) as never, {} as never);
    await dispatch(ctx as never, () => Promise.resolve());
    const body = (ctx.state as { seen?: { route?: string; params?: Record<string, string> } }).seen;
    const matched = ((ctx as unknown as { matched?: { path: string; methods: string[] }[] }).matched ?? []).map((l) => `${l.methods.join(',')} ${l.path}`);
    return { route: body?.route, params: body?.params, matched, status: ctx.status };
  }

  const concrete = ROUTES.map((r) => r.path.replace(/\{[^}]+\}/g, '0a1B2c3D-0000-4000-8000-00000000abcd'));
  const paths = [
    ...concrete,
    ...concrete.map((p) => p.toUpperCase()),
    ...concrete.map((p) => `${p}/`),
    ...concrete.map((p) => `${p}/more`),
    ...concrete.map((p) => p.replace('/api/v1/', '/api/v1//')),
    '/',
    '',
    '/api',
    '/api/v1',
    '/api/v1/',
    '/api/v1/nothing',
    '/api/v2/invoices',
    '/portal',
    '/portal/x',
    '/hooks',
    '/hooks/stripe',
    '/developers/',
    '/DEVELOPERS/OPENAPI.YAML',
    '/api/v1/%69nvoices',
  ];

  it.each(['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'])('%s: the router of the start matches what the router of every route matches', async (method) => {
    let hits = 0;
    for (const path of paths) {
      const own = startRouterOf(byStart, new URL(path, 'http://x').pathname);
      if (own) hits++;
      expect([path, await seen(own ?? everyRoute, method, path)]).toEqual([path, await seen(everyRoute, method, path)]);
    }
    expect(hits).toBeGreaterThan(concrete.length * 3); // most paths go to a small router
  });

  it('keeps a route with a shorter start in the routers of the longer starts it may match: /a/{x}/c and /a/b/c both match /a/b/c', async () => {
    const two = [
      { path: '/a/{x}/c', method: 'GET' },
      { path: '/a/b/c', method: 'GET' },
    ];
    const all = new Router();
    for (const r of two) all.register(koaPath(r.path), [r.method], chainOf(r.path, r.method));
    const starts = routersByStart(two.map((r) => ({ path: r.path, register: (x: Router) => x.register(koaPath(r.path), [r.method], chainOf(r.path, r.method)) })));
    for (const path of ['/a/b/c', '/a/z/c', '/A/B/C/']) {
      const own = startRouterOf(starts, path);
      expect(own).toBeDefined();
      expect([path, await seen(own!, 'GET', path)]).toEqual([path, await seen(all.routes() as unknown as Middleware, 'GET', path)]);
    }
    expect((await seen(startRouterOf(starts, '/a/b/c')!, 'GET', '/a/b/c')).matched).toEqual(['HEAD,GET /a/:x/c', 'HEAD,GET /a/b/c']);
  });

  it('holds few routes per start', () => {
    expect(byStart.size).toBeGreaterThan(20);
    for (const r of byStart.values()) expect((r as unknown as { router: Router }).router.stack.length).toBeLessThanOrEqual(12);
  });
});
