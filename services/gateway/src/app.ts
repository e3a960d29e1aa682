import Koa from 'koa';
import Router from '@koa/router';
import { ROUTES, type RouteDef, requestMediaType } from '@acct/contracts';
import type { Logger } from '@acct/kit';
import type { GatewayMetrics } from './metrics';
import type { TokenBuckets } from './rate-limit';
import { checkRoute, kindOf, takesBody } from './route-kind';
import { type KeyResolver, authenticate } from './middlewares/authenticate';
import { parseJson, readRaw, requireMediaType } from './middlewares/body';
import { clientRateLimit } from './middlewares/client-rate-limit';
import { requestContext } from './middlewares/context';
import { errors } from './middlewares/errors';
import { checkInput } from './middlewares/input';
import { type RpcCaller, forward } from './middlewares/forward';
import { type IdempotencyRecords, idempotency } from './middlewares/idempotency';
import { type ModuleEnforcement, moduleGuidance } from './middlewares/module-guidance';
import { rateLimit } from './middlewares/rate-limit';
import type { LocalHandler, Middleware } from './middlewares/state';
import { type UploadHandler, upload } from './middlewares/upload';
import { validate } from './middlewares/validate';
import { methodNotAllowed, mountRoutes } from './routing';
import { DEFAULT_UPLOAD_MAX_BYTES, documentUpload } from './uploads/documents';
import { portalHandlers } from './portal/portal';
import { type Asset, assetOf, developersHandlers, sendAsset } from './developers/developers';
import { dashboardPages } from './dashboard/pages';
import { parse as parseYaml } from 'yaml';
import { type DashboardV1Deps, dashboardV1 } from './dashboard/v1';

export interface GatewayDeps {
  keys: KeyResolver;
  idempotency: IdempotencyRecords;
  rpc: RpcCaller;
  log: Logger;
  metrics: GatewayMetrics;
  buckets: TokenBuckets;
  /** Per client address, before authentication. */
  clientBuckets: TokenBuckets;
  moduleEnforcement: ModuleEnforcement;
  openapiYaml: string;
  /** The routes to serve; contracts' ROUTES unless a test brings its own table. */
  routes?: readonly RouteDef[];
  /** More gateway handlers by operationId, next to getOpenApi and checkAuth. */
  handlers?: Record<string, LocalHandler>;
  /** More upload handlers by operationId, next to uploadDocument. */
  uploads?: Record<string, UploadHandler>;
  /** Largest document upload, bytes (25 MiB by default). */
  uploadMaxBytes?: number;
  /** Where uploads are spooled on their way to storage (the OS temp folder by default). */
  uploadSpoolDir?: string;
  /**
   * How long storage may keep a transfer waiting (connect, an answer, or the next bytes of an upload's
   * PUT or a download), ms; 5 s by default. Past it: 503 before the headers, a cut connection after.
   */
  storageTimeoutMs?: number;
  /**
   * Proxies in front of the gateway that append to X-Forwarded-For (0: none, the socket's address
   * is the client's; a client cannot then choose its address for the per-address limit).
   */
  trustedProxies?: number;
  /** The dashboard's built pages (clients/dashboard/dist); undefined: found as @acct/dashboard's, or DASHBOARD_DIST_DIR; null: none (503). */
  dashboardDist?: string | null;
  /** The public API under /dashboard/api/v1 for signed-in members (dashboard/v1.ts); not served without. */
  dashboard?: DashboardV1Deps;
}

function builtInHandlers(deps: GatewayDeps): Record<string, LocalHandler> {
  const document = assetOf(deps.openapiYaml);
  let json: Asset | undefined;
  return {
    // Revalidated on each use (a deploy changes it): a current copy costs a 304, a new one ~1/8 of its size gzipped.
    getOpenApi: (ctx) => sendAsset(ctx, document, 'application/yaml', 'no-cache'),
    // The same document as JSON, made from the YAML on first use so the two never differ.
    getOpenApiJson: (ctx) => sendAsset(ctx, (json ??= assetOf(JSON.stringify(parseYaml(deps.openapiYaml)))), 'application/json', 'no-cache'),
    checkAuth: (ctx) => {
      const p = ctx.state.principal!;
      ctx.body = {
        data: { authenticated: true, environment: p.environment, connected_app_id: p.connectedAppId, organization_id: p.organizationId },
      };
    },
    ...portalHandlers(deps),
    ...developersHandlers(),
  };
}

const API_PREFIX = '/api/v1';

function uploadHandlers(deps: GatewayDeps): Record<string, UploadHandler> {
  const documents = documentUpload({
    rpc: deps.rpc,
    log: deps.log,
    maxBytes: deps.uploadMaxBytes ?? DEFAULT_UPLOAD_MAX_BYTES,
    spoolDir: deps.uploadSpoolDir,
    ...(deps.storageTimeoutMs ? { putTimeoutMs: deps.storageTimeoutMs } : {}),
  });
  return { uploadDocument: documents, ...deps.uploads };
}

const named = <T>(table: Record<string, T> | undefined, route: RouteDef, what: string): T => {
  const h = table?.[route.operationId];
  if (!h) throw new Error(`no ${what} for ${route.operationId}`);
  return h;
};

const mark =
  (route: RouteDef): Middleware =>
  async (ctx, next) => {
    ctx.state.routePath = route.path;
    await next();
  };

/** The steps that say who calls a keyed route: the API key's, or the dashboard member's (dashboard/v1.ts). */
type Access = (r: RouteDef) => Middleware[];

/** One chain per kind of route, named by its parts; a keyed kind's access steps may be replaced. */
function routeChains(deps: GatewayDeps, byClient: Middleware): Record<NonNullable<RouteDef['kind']>, (r: RouteDef, access?: Access) => Middleware[]> {
  const local = { ...builtInHandlers(deps), ...deps.handlers };
  const uploads = uploadHandlers(deps);
  const records = { records: deps.idempotency, metrics: deps.metrics };
  const localHandler = (route: RouteDef): Middleware => {
    const h = named(local, route, 'gateway handler');
    return async (ctx) => h(ctx);
  };
  const handler = (route: RouteDef): Middleware => (route.rpc ? forward(route, deps) : localHandler(route));
  const withKey: Access = (route) => [byClient, authenticate(deps), rateLimit(deps), moduleGuidance(route, deps.moduleEnforcement)];
  // The body's media type is the one the route declares in the OpenAPI document (415 otherwise).
  const declaredType = (route: RouteDef): Middleware => requireMediaType(requestMediaType(route)!);
  const jsonBody = (route: RouteDef): Middleware[] => (takesBody(route) ? [declaredType(route), parseJson] : []);
  const input = (route: RouteDef, body = takesBody(route)): Middleware => checkInput({ hasBody: body });
  return {
    json: (r, access = withKey) => [mark(r), ...access(r), ...jsonBody(r), input(r), validate(r), idempotency(r, records), handler(r)],
    download: (r, access = withKey) => [mark(r), ...access(r), input(r, false), validate(r), forward(r, deps)],
    upload: (r, access = withKey) => [mark(r), ...access(r), input(r, false), validate(r), idempotency(r, records), upload(r, named(uploads, r, 'upload handler'))],
    // No key: limited per client address (the portal's pages, the OpenAPI document and its reference page).
    public: (r) => [mark(r), byClient, ...jsonBody(r), input(r), validate(r), localHandler(r)],
    // No key: limited per client address; the bytes go unparsed to the service, which checks their signature.
    raw: (r) => [mark(r), byClient, declaredType(r), input(r, false), validate(r), readRaw, forward(r, deps)],
  };
}

/**
 * An unknown path under /api/v1 is authenticated (and limited) like a known one before its 404:
 * without a valid key it is 401, so the API's shape is not shown to a caller without a key.
 */
function unknownApiPath(deps: GatewayDeps, byClient: Middleware): Middleware {
  const keyFirst = [byClient, authenticate(deps), rateLimit(deps)];
  return async (ctx, next) => {
    if (ctx.path !== API_PREFIX && !ctx.path.startsWith(`${API_PREFIX}/`)) {
      await next();
      return;
    }
    const run = (i: number): Promise<void> => (i < keyFirst.length ? keyFirst[i]!(ctx, () => run(i + 1)) : next());
    await run(0);
  };
}

export function createGatewayApp(deps: GatewayDeps): { app: Koa; router: Router } {
  const byClient = clientRateLimit(deps);
  const chains = routeChains(deps, byClient);
  const routes = deps.routes ?? ROUTES;
  const mounted = routes.map((route) => {
    checkRoute(route);
    return { path: route.path, method: route.method, chain: chains[kindOf(route)](route) };
  });
  const { router, routed } = mountRoutes(mounted);
  const dashboard = deps.dashboard && dashboardV1({ ...deps, dashboard: deps.dashboard }, byClient, routes, (r, access) => chains[kindOf(r)](r, access));

  const app = new Koa();
  // Behind N trusted proxies the client address is the entry the outermost of them appended to
  // X-Forwarded-For, never one the client wrote further left: the per-address limit keys on it.
  const hops = deps.trustedProxies ?? 0;
  app.proxy = hops > 0;
  app.maxIpsCount = hops;
  app.silent = true;
  app.use(requestContext(deps));
  app.use(errors());
  app.use(dashboardPages({ log: deps.log, distDir: deps.dashboardDist })); // GET /dashboard and its pages, not /dashboard/api
  app.use(routed);
  // Reached only when no public route matched: a served /api/v1 request never gets here.
  if (dashboard) app.use(dashboard);
  app.use(methodNotAllowed(router)); // reached only when no route matched: acts on the way back
  app.use(unknownApiPath(deps, byClient)); // reached only when no route matched
  return { app, router };
}
