/**
 * The public API through the dashboard (API-DECISIONS §13, docs/dashboard.md "Roles" and "Scope
 * headers"): every keyed route under /api/v1 is mounted again under /dashboard/api/v1 with the same
 * chain (validation, Idempotency-Key, per-key rate limit, module guidance, the envelope), but the
 * signed-in member stands in for the API key:
 * - the session middleware (injected: sessions.ts `signedIn`) sets ctx.state.dashboard and checks
 *   CSRF-Token and Origin;
 * - dashboardPrincipal builds the principal: the member's organization, the environment of header
 *   Dashboard-Environment (test when absent), the connected app of header Dashboard-App (the
 *   organization's oldest when absent), and the member's id as apiKeyId, so that Idempotency-Key
 *   records (idempotency_keys.api_key_id is a uuid, as members.id) and the rate-limit bucket are
 *   the member's. A service that records the API key of a change (books_lock_changes.api_key_id,
 *   document_shares.api_key_id) records the member's id for a dashboard change;
 * - roleGuard refuses what the member's role may not do (403);
 * - a webhook endpoint change or a lock-date change answered 2xx writes an audit row.
 */
import { AppError, ENVIRONMENTS, type Environment, type RouteDef } from '@acct/contracts';
import type { Orm } from '@acct/kit';
import type { Principal } from '../key-store';
import type { GatewayMetrics } from '../metrics';
import type { ModuleEnforcement } from '../middlewares/module-guidance';
import { moduleGuidance } from '../middlewares/module-guidance';
import { limitBy, rateLimit } from '../middlewares/rate-limit';
import type { Ctx, Middleware } from '../middlewares/state';
import type { TokenBuckets } from '../rate-limit';
import { kindOf } from '../route-kind';
import { methodNotAllowed, mountRoutes } from '../routing';
import { type AuditAction, type AuditEntry, recordAudit } from './audit-log';
import { roleGuard } from './role';
import { type OrgScope, type ScopeResolver, ScopeStore } from './scopes';

/** What the dashboard's door to the public API is built with. */
export interface DashboardV1Deps {
  /**
   * The session middleware (sessions.ts `signedIn`): sets ctx.state.dashboard from the session
   * cookie and checks CSRF-Token and Origin; 401 without a session, 403 on a bad token or origin.
   */
  signedIn: Middleware;
  /** The members' organizations: modules and connected apps (cached). */
  scopes: ScopeResolver;
  /** Appends an audit row, outside any service's transaction (the change is another service's). */
  audit: (entry: AuditEntry) => Promise<void>;
}

/** The deps of the running gateway: the organizations cached ttlMs, audit rows in the gateway's schema. */
export function dashboardV1Deps(orm: Orm, signedIn: Middleware, ttlMs: number): DashboardV1Deps {
  return { signedIn, scopes: new ScopeStore(orm, ttlMs), audit: (entry) => recordAudit(orm.em.fork(), entry) };
}

/** What the dashboard's routes read of the gateway's deps. */
export interface DashboardV1Context {
  dashboard: DashboardV1Deps;
  buckets: TokenBuckets;
  metrics: GatewayMetrics;
  moduleEnforcement: ModuleEnforcement;
}

/** The dashboard's copy of /api/v1/<path> is DASHBOARD + /api/v1/<path>. */
export const DASHBOARD = '/dashboard';
const UNDER_V1 = /^\/dashboard\/api\/v1(\/|$)/i;

/** The public routes reachable through the dashboard: every one under /api/v1 that takes an API key. */
export const reachableFromDashboard = (route: RouteDef): boolean => route.path.startsWith('/api/v1/') && route.auth && ['json', 'download', 'upload'].includes(kindOf(route));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Header Dashboard-Environment: test or live, test when absent; 400 validation_failed otherwise. */
export function environmentOf(ctx: Ctx): Environment {
  const asked = ctx.get('dashboard-environment');
  if (asked === '') return 'test';
  const env = ENVIRONMENTS.find((e) => e === asked);
  if (env) return env;
  throw AppError.validation('Header Dashboard-Environment must be test or live.', [
    { field: 'Dashboard-Environment', issue: 'invalid_value', message: 'Use test or live (test when the header is absent).' },
  ]);
}

/**
 * Header Dashboard-App: a connected app of the member's organization (the oldest when absent).
 * Not a UUID: 400 validation_failed; no such app in the organization (another organization's app
 * included, whose existence is not shown): 404 not_found; a disabled app: 403 forbidden, as the
 * key of a disabled app is.
 */
export function connectedAppOf(ctx: Ctx, scope: OrgScope): string {
  const asked = ctx.get('dashboard-app');
  if (asked === '') {
    const first = scope.apps[0];
    if (!first) throw new AppError('not_found', 'The organization has no connected app yet: an owner adds one in the dashboard.');
    if (!first.active) throw new AppError('forbidden', "The organization's first connected app is disabled: choose another with header Dashboard-App.");
    return first.id;
  }
  if (!UUID.test(asked)) {
    throw AppError.validation('Header Dashboard-App must be the id of a connected app.', [
      { field: 'Dashboard-App', issue: 'invalid_format', message: 'A connected app id (a UUID).' },
    ]);
  }
  const app = scope.apps.find((a) => a.id === asked.toLowerCase());
  if (!app) throw new AppError('not_found', `There is no connected app ${asked} in this organization.`);
  if (!app.active) throw new AppError('forbidden', `The connected app ${asked} is disabled.`);
  return app.id;
}

/** Builds ctx.state.principal from the signed-in member and the scope headers. */
export function dashboardPrincipal(scopes: ScopeResolver): Middleware {
  return async (ctx, next) => {
    const session = ctx.state.dashboard;
    if (!session) throw new AppError('unauthorized', 'Sign in to the dashboard first.');
    const { member } = session;
    const environment = environmentOf(ctx);
    const scope = await scopes.org(member.organizationId);
    if (!scope) throw new AppError('forbidden', "The member's organization no longer exists.");
    const principal: Principal = {
      apiKeyId: member.id,
      organizationId: member.organizationId,
      connectedAppId: connectedAppOf(ctx, scope),
      environment,
      revoked: false,
      appActive: true,
      enabledModules: scope.enabledModules,
    };
    ctx.state.principal = principal;
    // The same key, path and body in another environment or app is another request (409 on reuse).
    ctx.state.fingerprintScope = `${environment} ${principal.connectedAppId}`;
    await next();
  };
}

type Body = { data?: { id?: unknown; lock_date?: unknown } } | null | undefined;
const dataOf = (ctx: Ctx): NonNullable<Body>['data'] => (ctx.body as Body)?.data;
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The dashboard changes forwarded to a service that the audit log records, by operationId, with their target. */
export const AUDITED: Readonly<Record<string, { action: AuditAction; target: (ctx: Ctx) => string | null }>> = {
  createWebhookEndpoint: { action: 'webhook_endpoint.created', target: (ctx) => text(dataOf(ctx)?.id) },
  updateWebhookEndpoint: { action: 'webhook_endpoint.updated', target: (ctx) => text(ctx.params.id) },
  deleteWebhookEndpoint: { action: 'webhook_endpoint.deleted', target: (ctx) => text(ctx.params.id) },
  rotateWebhookEndpointSecret: { action: 'webhook_endpoint.secret_rotated', target: (ctx) => text(ctx.params.id) },
  // The lock date set (null: the lock removed).
  putBooksLock: { action: 'books_lock.updated', target: (ctx) => text(dataOf(ctx)?.lock_date) },
};

/**
 * After a 2xx answer to an audited route, one audit row (docs/dashboard.md: a change forwarded to a
 * service is recorded when the service answered 2xx). A replay of an Idempotency-Key made no new
 * change and writes none. A failure to write is logged: the change is made and the answer stands.
 */
export function audited(route: RouteDef, audit: DashboardV1Deps['audit']): Middleware | undefined {
  const what = AUDITED[route.operationId];
  if (!what) return undefined;
  return async (ctx, next) => {
    await next();
    if (ctx.status < 200 || ctx.status >= 300 || ctx.response.get('Idempotent-Replayed')) return;
    const { member } = ctx.state.dashboard!;
    const entry: AuditEntry = {
      organizationId: member.organizationId,
      actor: { memberId: member.id, email: member.email },
      action: what.action,
      target: what.target(ctx),
      address: ctx.ip || null,
    };
    await audit(entry).catch((err: unknown) => ctx.state.log.warn({ err, action: what.action }, 'could not write the audit row of a dashboard change'));
  };
}

/** What stands in a dashboard route's chain where the public one authenticates its API key. */
export function dashboardAccess(route: RouteDef, c: DashboardV1Context, byClient: Middleware): Middleware[] {
  const audit = audited(route, c.dashboard.audit);
  return [
    byClient,
    c.dashboard.signedIn,
    dashboardPrincipal(c.dashboard.scopes),
    rateLimit(c),
    roleGuard(route),
    ...(audit ? [audit] : []),
    moduleGuidance(route, c.moduleEnforcement),
  ];
}

/** A route's chain with `access` in place of the API key's steps (app.ts routeChains). */
export type ChainOf = (route: RouteDef, access: (route: RouteDef) => Middleware[]) => Middleware[];

/**
 * Serves /dashboard/api/v1/*: the reachable routes, each with its public chain under the dashboard's
 * access; an unknown path (404) or method (405) is answered after the session check and the
 * member's rate limit (401 without a session), as the public API answers one after the key check.
 * Every other path goes on.
 */
export function dashboardV1(c: DashboardV1Context, byClient: Middleware, routes: readonly RouteDef[], chainOf: ChainOf): Middleware {
  const mounted = routes.filter(reachableFromDashboard).map((route) => {
    const own: RouteDef = { ...route, path: `${DASHBOARD}${route.path}` };
    return { path: own.path, method: own.method, chain: chainOf(own, () => dashboardAccess(route, c, byClient)) };
  });
  const { router, routed } = mountRoutes(mounted, { under: DASHBOARD });
  const notAllowed = methodNotAllowed(router);
  const byMember = limitBy(c.buckets, (ctx) => ctx.state.dashboard!.member.id, c.metrics.rateLimited, 'Rate limit');
  const sessionFirst = [byClient, c.dashboard.signedIn, byMember, (ctx: Ctx) => notAllowed(ctx, () => Promise.resolve())];
  const unmatched = (ctx: Ctx): Promise<void> => {
    const run = (i: number): Promise<void> => (i < sessionFirst.length ? sessionFirst[i]!(ctx, () => run(i + 1)) : Promise.resolve());
    return run(0);
  };
  return async (ctx, next) => {
    if (!UNDER_V1.test(ctx.path)) {
      await next();
      return;
    }
    await routed(ctx, () => unmatched(ctx));
  };
}
