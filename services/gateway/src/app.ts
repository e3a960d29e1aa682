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
import { errors, sendError } from './middlewares/errors';
import { checkInput } from './middlewares/input';
import { type RpcCaller, forward } from './middlewares/forward';
import { type IdempotencyRecords, idempotency } from './middlewares/idempotency';
import { type ModuleEnforcement, moduleGuidance } from './middlewares/module-guidance';
import { rateLimit } from './middlewares/rate-limit';
import type { LocalHandler, Middleware } from './middlewares/state';
import { type UploadHandler, upload } from './middlewares/upload';
import { validate } from './middlewares/validate';
import { DEFAULT_UPLOAD_MAX_BYTES, documentUpload } from './uploads/documents';
import { portalHandlers } from './portal/portal';
import { type Asset, assetOf, developersHandlers, sendAsset } from './developers/developers';
import { parse as parseYaml } from 'yaml';

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

function koaPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}

const API_PREFIX = '/api/v1';

/** The literal start of a path template, at most its first three segments ('/api/v1/invoices'), lower-cased. */
function literalStart(template: string): string {
  const segments = template.split('/').slice(0, 4);
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
 * the router of every route. A start is one, two or three whole segments.
 */
export function startRouterOf(byStart: ReadonlyMap<string, Middleware>, path: string): Middleware | undefined {
  const segments = path.split('/', 4).map((x) => x.toLowerCase());
  for (let n = Math.min(segments.length, 4); n > 1; n--) {
    const r = byStart.get(segments.slice(0, n).join('/'));
    if (r) return r;
  }
  return undefined;
}

export function createGatewayApp(deps: GatewayDeps): { app: Koa; router: Router } {
  const local = { ...builtInHandlers(deps), ...deps.handlers };
  const uploads: Record<string, UploadHandler> = {
    uploadDocument: documentUpload({
      rpc: deps.rpc,
      log: deps.log,
      maxBytes: deps.uploadMaxBytes ?? DEFAULT_UPLOAD_MAX_BYTES,
      spoolDir: deps.uploadSpoolDir,
      ...(deps.storageTimeoutMs ? { putTimeoutMs: deps.storageTimeoutMs } : {}),
    }),
    ...deps.uploads,
  };
  const records = { records: deps.idempotency, metrics: deps.metrics };

  const named = <T>(table: Record<string, T> | undefined, route: RouteDef, what: string): T => {
    const h = table?.[route.operationId];
    if (!h) throw new Error(`no ${what} for ${route.operationId}`);
    return h;
  };
  const localHandler = (route: RouteDef): Middleware => {
    const h = named(local, route, 'gateway handler');
    return async (ctx) => h(ctx);
  };
  const handler = (route: RouteDef): Middleware => (route.rpc ? forward(route, deps) : localHandler(route));
  const mark =
    (route: RouteDef): Middleware =>
    async (ctx, next) => {
      ctx.state.routePath = route.path;
      await next();
    };
  const byClient = clientRateLimit(deps);
  const withKey = (route: RouteDef): Middleware[] => [byClient, authenticate(deps), rateLimit(deps), moduleGuidance(route, deps.moduleEnforcement)];
  // The body's media type is the one the route declares in the OpenAPI document (415 otherwise).
  const declaredType = (route: RouteDef): Middleware => requireMediaType(requestMediaType(route)!);
  const jsonBody = (route: RouteDef): Middleware[] => (takesBody(route) ? [declaredType(route), parseJson] : []);
  const input = (route: RouteDef, body = takesBody(route)): Middleware => checkInput({ hasBody: body });

  // One chain per route, by its kind, named by its parts.
  const chains = {
    json: (r: RouteDef) => [mark(r), ...withKey(r), ...jsonBody(r), input(r), validate(r), idempotency(r, records), handler(r)],
    download: (r: RouteDef) => [mark(r), ...withKey(r), input(r, false), validate(r), forward(r, deps)],
    upload: (r: RouteDef) => [mark(r), ...withKey(r), input(r, false), validate(r), idempotency(r, records), upload(r, named(uploads, r, 'upload handler'))],
    // No key: limited per client address (the portal's pages, the OpenAPI document and its reference page).
    public: (r: RouteDef) => [mark(r), byClient, ...jsonBody(r), input(r), validate(r), localHandler(r)],
    // No key: limited per client address; the bytes go unparsed to the service, which checks their signature.
    raw: (r: RouteDef) => [mark(r), byClient, declaredType(r), input(r, false), validate(r), readRaw, forward(r, deps)],
  } satisfies Record<NonNullable<RouteDef['kind']>, (r: RouteDef) => Middleware[]>;

  const routes = deps.routes ?? ROUTES;
  const router = new Router();
  const registered = routes.map((route) => {
    checkRoute(route);
    const chain = chains[kindOf(route)](route);
    router.register(koaPath(route.path), [route.method], chain);
    return { route, chain };
  });
  const byStart = routersByStart(registered.map(({ route, chain }) => ({ path: route.path, register: (r: Router) => r.register(koaPath(route.path), [route.method], chain) })));
  const dispatch = router.routes() as unknown as Middleware;
  // The router of the request path's literal start, or the one of every route.
  const routed: Middleware = (ctx, next) => (startRouterOf(byStart, ctx.path) ?? dispatch)(ctx, next);

  // An unknown path under /api/v1 is authenticated (and limited) like a known one before its 404:
  // without a valid key it is 401, so the API's shape is not shown to a caller without a key.
  const keyFirst = [byClient, authenticate(deps), rateLimit(deps)];
  const unknownApiPath: Middleware = async (ctx, next) => {
    if (ctx.path !== API_PREFIX && !ctx.path.startsWith(`${API_PREFIX}/`)) {
      await next();
      return;
    }
    const run = (i: number): Promise<void> => (i < keyFirst.length ? keyFirst[i]!(ctx, () => run(i + 1)) : next());
    await run(0);
  };

  // A known path asked with a method it does not have: 405 with an Allow header listing the ones it
  // has, in the error envelope (under /api/v1 after the key check above, like an unknown path).
  const allowed = router.allowedMethods() as unknown as Middleware;
  const methodNotAllowed: Middleware = async (ctx, next) => {
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

  const app = new Koa();
  // Behind N trusted proxies the client address is the entry the outermost of them appended to
  // X-Forwarded-For, never one the client wrote further left: the per-address limit keys on it.
  const hops = deps.trustedProxies ?? 0;
  app.proxy = hops > 0;
  app.maxIpsCount = hops;
  app.silent = true;
  app.use(requestContext(deps));
  app.use(errors());
  app.use(routed);
  app.use(methodNotAllowed); // reached only when no route matched: acts on the way back
  app.use(unknownApiPath); // reached only when no route matched
  return { app, router };
}
