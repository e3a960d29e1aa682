import Router from '@koa/router';
import { AppError } from '@acct/contracts';
import type { Orm } from '@acct/kit';
import type { GatewayMetrics } from '../metrics';
import { clientRateLimit } from '../middlewares/client-rate-limit';
import type { Middleware } from '../middlewares/state';
import type { TokenBuckets } from '../rate-limit';
import { retryAfter } from './http';
import { warmDummyHash } from './passwords';
import { inviteRoutes } from './routes-invites';
import { memberRoutes } from './routes-members';
import { type RouteDeps, on, sessionRoutes, startSession } from './routes-session';
import { PASSKEY_ROUTES, passkeyHandlers } from './passkeys-routes';
import { KEY_ROLES, keyHandlers } from './keys-routes';
import { noBody, passThroughJson } from './http';
import { allow, sameOrigin, sessionResolver, signedIn } from './sessions';

export { allow, sameOrigin, sessionResolver, signedIn } from './sessions';

export const DASHBOARD_API = '/dashboard/api';
const V1 = `${DASHBOARD_API}/v1`;

/** What the dashboard's JSON API is built with. */
export interface DashboardOptions {
  orm: Orm;
  /** The dashboard's address for invitation links; the request's own origin + /dashboard by default. */
  dashboardUrl?: string;
  /** DASHBOARD_ORIGIN: the origin passkeys are bound to (passkeys-routes.ts); the request's own by default. */
  dashboardOrigin?: string;
}

export interface DashboardDeps extends DashboardOptions {
  /** The per-client-address buckets of the public routes (the same budget). */
  clientBuckets: TokenBuckets;
  metrics: GatewayMetrics;
}

/** The passkey routes (passkeys-routes.ts) with this API's session, CSRF and body checks. */
function passkeyRoutes(router: Router, d: RouteDeps, deps: DashboardDeps): void {
  const handlers = passkeyHandlers({ orm: deps.orm, startSession: startSession(deps.orm), ...(deps.dashboardOrigin ? { dashboardOrigin: deps.dashboardOrigin } : {}) });
  const auth = signedIn(d.resolve);
  for (const r of PASSKEY_ROUTES) {
    const h = handlers[r.handler];
    const input = r.method === 'POST' ? passThroughJson : [noBody];
    on(router, r.method, r.path.slice(DASHBOARD_API.length), ...(r.signedIn ? [auth] : [sameOrigin]), ...input, async (ctx) => h(ctx));
  }
}

/** The key routes (keys-routes.ts): owners and developers, signed in. */
function keyRoutes(router: Router, d: RouteDeps): void {
  const h = keyHandlers({ orm: d.orm });
  const guard = [signedIn(d.resolve), allow(...KEY_ROLES)];
  on(router, 'GET', '/apps/:app_id/keys', noBody, ...guard, h.listKeys);
  on(router, 'POST', '/apps/:app_id/keys', ...guard, passThroughJson, h.createKey);
  on(router, 'POST', '/apps/:app_id/keys/:id/roll', ...guard, passThroughJson, h.rollKey);
  on(router, 'DELETE', '/apps/:app_id/keys/:id', noBody, ...guard, h.revokeKey);
}

/**
 * The dashboard's JSON API (docs/dashboard.md) as one Koa middleware: requests under
 * /dashboard/api are limited per client address (the public routes' limit, before any session
 * lookup), then routed; an unknown path there is 404 not_found. Other requests pass through.
 */
export function dashboardApi(deps: DashboardDeps): Middleware {
  warmDummyHash();
  const router = new Router({ prefix: DASHBOARD_API });
  const routeDeps = { orm: deps.orm, resolve: sessionResolver(deps.orm), ...(deps.dashboardUrl ? { dashboardUrl: deps.dashboardUrl } : {}) };
  sessionRoutes(router, routeDeps);
  inviteRoutes(router, routeDeps);
  memberRoutes(router, routeDeps);
  passkeyRoutes(router, routeDeps, deps);
  keyRoutes(router, routeDeps);
  const routes = router.routes() as unknown as Middleware;
  const byClient = clientRateLimit(deps);
  return async (ctx, next) => {
    // /dashboard/api/v1 is the public API's (dashboard/v1.ts).
    if ((ctx.path !== DASHBOARD_API && !ctx.path.startsWith(`${DASHBOARD_API}/`)) || ctx.path === V1 || ctx.path.startsWith(`${V1}/`)) {
      await next();
      return;
    }
    await byClient(ctx, () =>
      retryAfter(ctx, async () => {
        ctx.set('Cache-Control', 'no-store');
        await routes(ctx, () => Promise.reject(new AppError('not_found', `There is no route ${ctx.method} ${ctx.path}.`)));
      }),
    );
  };
}
