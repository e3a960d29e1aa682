import Router from '@koa/router';
import { sendError } from './middlewares/errors';
import type { Middleware } from './middlewares/state';

/** A route to mount: its OpenAPI path template, its method and its middleware chain. */
export interface Mounted {
  path: string;
  method: string;
  chain: Middleware[];
}

function koaPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}

const register = (r: Router, { path, method, chain }: Mounted): void => {
  r.register(koaPath(path), [method], chain);
};

/**
 * Segments a literal start has at most: four, so that a family of many routes under one path
 * (/api/v1/settings/…, /api/v1/reports/…) is split by its fourth segment.
 */
const START_SEGMENTS = 4;

/** The literal start of a path template, at most its first START_SEGMENTS segments ('/api/v1/invoices'), lower-cased. */
function literalStart(template: string): string {
  const segments = template.split('/').slice(0, START_SEGMENTS + 1);
  const param = segments.findIndex((x) => x.includes('{'));
  return (param === -1 ? segments : segments.slice(0, param)).join('/').toLowerCase();
}

/**
 * @koa/router tests every route's pattern in turn (87 routes: ~5% of the gateway's busy time under
 * post-invoice). Each literal start of a path template gets a router of its own, holding the
 * routes that start with it and those whose shorter start is a prefix of it (a parameter follows
 * it, so they may match too), in their order: what the router of every route would match there.
 */
export function routersByStart(routes: readonly { path: string; register: (r: Router) => void }[]): Map<string, Middleware> {
  const starts = [...new Set(routes.map((r) => literalStart(r.path)))];
  const out = new Map<string, Middleware>();
  for (const start of starts) {
    const r = new Router();
    for (const route of routes) {
      const own = literalStart(route.path);
      if (own === start || start.startsWith(`${own}/`)) route.register(r);
    }
    out.set(start, r.routes() as unknown as Middleware);
  }
  return out;
}

/**
 * The router of the longest literal start the request path begins with, matched as the router
 * matches (case-insensitive, a trailing slash optional); undefined when none: the caller then asks
 * the router of every route. A start is one to START_SEGMENTS whole segments.
 */
export function startRouterOf(byStart: ReadonlyMap<string, Middleware>, path: string): Middleware | undefined {
  const segments = path.split('/', START_SEGMENTS + 1).map((x) => x.toLowerCase());
  for (let n = segments.length; n > 1; n--) {
    const r = byStart.get(segments.slice(0, n).join('/'));
    if (r) return r;
  }
  return undefined;
}

/**
 * The one way routes are mounted: each in the router of every route (its allowedMethods answers
 * 405) and in the routers of the literal starts it may match under; `routed` dispatches a request
 * to the router of its path's literal start, or to the router of every route. With `under` (a
 * prefix every path has, e.g. /dashboard), starts are taken after it, and `routed` must be asked
 * only for paths under it.
 */
export function mountRoutes(routes: readonly Mounted[], { under = '' }: { under?: string } = {}): { router: Router; routed: Middleware } {
  const router = new Router();
  for (const route of routes) register(router, route);
  const byStart = routersByStart(routes.map((route) => ({ path: route.path.slice(under.length), register: (r: Router) => register(r, route) })));
  const dispatch = router.routes() as unknown as Middleware;
  const routed: Middleware = under
    ? (ctx, next) => (startRouterOf(byStart, ctx.path.slice(under.length)) ?? dispatch)(ctx, next)
    : (ctx, next) => (startRouterOf(byStart, ctx.path) ?? dispatch)(ctx, next);
  return { router, routed };
}

/**
 * A known path asked with a method it does not have: 405 with an Allow header listing the ones it
 * has, in the error envelope (under /api/v1 after the key check, like an unknown path). Acts on the
 * way back, when no route matched.
 */
export function methodNotAllowed(router: Router): Middleware {
  const allowed = router.allowedMethods() as unknown as Middleware;
  return async (ctx, next) => {
    await allowed(ctx, next);
    // OPTIONS too: the router would answer it 200 with an empty body, a response no operation declares.
    const options = ctx.method === 'OPTIONS' && ctx.status === 200 && Boolean(ctx.response.get('Allow'));
    if (ctx.status !== 405 && ctx.status !== 501 && !options) return;
    const allow = ctx.response.get('Allow');
    if (!allow) {
      ctx.remove('Allow');
      ctx.status = 404; // no route has this path: the errors middleware answers not_found
      return;
    }
    const methods = allow.split(/,\s*/).filter(Boolean);
    sendError(
      ctx,
      'validation_failed',
      `${ctx.method} is not allowed on ${ctx.path}; allowed: ${methods.join(', ')}.`,
      [{ field: 'method', issue: 'method_not_allowed', message: `Use one of ${methods.join(', ')}.` }],
      405,
    );
  };
}
