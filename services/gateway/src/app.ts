import Koa from 'koa';
import Router from '@koa/router';
import { ROUTES, type RouteDef } from '@acct/contracts';
import type { Logger } from '@acct/kit';
import type { GatewayMetrics } from './metrics';
import type { TokenBuckets } from './rate-limit';
import { type KeyResolver, authenticate } from './middlewares/authenticate';
import { parseJson, requireJson } from './middlewares/body';
import { requestContext } from './middlewares/context';
import { errors } from './middlewares/errors';
import { type RpcCaller, forward } from './middlewares/forward';
import { type IdempotencyRecords, idempotency } from './middlewares/idempotency';
import { type ModuleEnforcement, moduleGuidance } from './middlewares/module-guidance';
import { rateLimit } from './middlewares/rate-limit';
import type { Ctx, Middleware } from './middlewares/state';
import { validate } from './middlewares/validate';

export interface GatewayDeps {
  keys: KeyResolver;
  idempotency: IdempotencyRecords;
  rpc: RpcCaller;
  log: Logger;
  metrics: GatewayMetrics;
  buckets: TokenBuckets;
  moduleEnforcement: ModuleEnforcement;
  openapiYaml: string;
}

/** A route the gateway answers itself (rpc: null). */
type LocalHandler = (ctx: Ctx) => void;

function localHandlers(deps: GatewayDeps): Record<string, LocalHandler> {
  return {
    getOpenApi: (ctx) => {
      ctx.type = 'application/yaml';
      ctx.body = deps.openapiYaml;
    },
    checkAuth: (ctx) => {
      const p = ctx.state.principal!;
      ctx.body = {
        data: { authenticated: true, environment: p.environment, connected_app_id: p.connectedAppId, organization_id: p.organizationId },
      };
    },
  };
}

function koaPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}

export function createGatewayApp(deps: GatewayDeps): { app: Koa; router: Router } {
  const { metrics } = deps;
  const local = localHandlers(deps);

  const handlerOf = (route: RouteDef): Middleware => {
    if (route.rpc) return forward(route, deps);
    const h = local[route.operationId];
    if (!h) throw new Error(`no gateway handler for ${route.operationId}`);
    return async (ctx) => h(ctx);
  };

  // One chain per route of contracts' ROUTES, named by its parts.
  const chainOf = (route: RouteDef): Middleware[] => [
    async (ctx, next) => {
      ctx.state.routePath = route.path;
      await next();
    },
    ...(route.auth ? [authenticate(deps), rateLimit(deps), moduleGuidance(route, deps.moduleEnforcement)] : []),
    ...(route.method === 'POST' || route.method === 'PUT' ? [requireJson, parseJson] : []),
    validate(route),
    idempotency(route, { records: deps.idempotency, metrics }),
    handlerOf(route),
  ];

  const router = new Router();
  for (const route of ROUTES) router.register(koaPath(route.path), [route.method], chainOf(route));

  const app = new Koa();
  app.proxy = true;
  app.silent = true;
  app.use(requestContext(deps));
  app.use(errors());
  app.use(router.routes());
  return { app, router };
}
