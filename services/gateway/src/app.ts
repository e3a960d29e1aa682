import { randomUUID } from 'node:crypto';
import Koa, { type Context, type Next } from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { ValidateFunction } from 'ajv';
import {
  AppError,
  type ErrorCode,
  type ErrorDetail,
  HTTP_STATUS_BY_CODE,
  ROUTES,
  type RouteDef,
  SCOPE_FIELDS,
  compileBody,
  compileQuery,
  isAppError,
  limits,
  toDetails,
  type RpcRequest,
} from '@acct/contracts';
import { type Logger, type RpcClient, isBackendUnavailable } from '@acct/kit';
import type { KeyStore, Principal } from './key-store';
import type { TokenBuckets } from './rate-limit';
import { type IdempotencyStore, fingerprint } from './idempotency';
import { parseKey } from './keys';
import type { GatewayMetrics } from './metrics';

export interface GatewayDeps {
  keys: KeyStore;
  idempotency: IdempotencyStore;
  rpc: RpcClient;
  log: Logger;
  metrics: GatewayMetrics;
  buckets: TokenBuckets;
  moduleEnforcement: 'soft' | 'hard';
  openapiYaml: string;
}

interface State {
  requestId: string;
  log: Logger;
  routePath?: string;
  principal?: Principal;
  query?: Record<string, unknown>;
  body?: unknown;
}

type Ctx = Context & { state: State };

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const SERVICE_RETRY_AFTER_SECONDS = 1;

function sendError(ctx: Ctx, code: ErrorCode, message: string, details: ErrorDetail[] = [], status?: number): void {
  ctx.status = status ?? HTTP_STATUS_BY_CODE[code];
  ctx.body = { error: { code, message, details, request_id: ctx.state.requestId } };
  if (code === 'service_unavailable') ctx.set('Retry-After', String(SERVICE_RETRY_AFTER_SECONDS));
}

/** Maps a failure of the JSON body parser (raw-body / co-body errors) to the envelope's vocabulary. */
function bodyError(err: { status?: number; type?: string }): AppError {
  if (err.status === 413 || err.type === 'entity.too.large') {
    return new AppError('validation_failed', `The request body is over the ${limits.json_body_bytes_max}-byte limit.`, [], 413);
  }
  if (err.status === 415 || err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
    return new AppError('validation_failed', 'The body uses an unsupported encoding or charset.', [], 415);
  }
  return AppError.validation('The request body is not valid JSON.', [
    { field: '/', issue: 'malformed_json', message: 'The body could not be parsed as JSON.' },
  ]);
}

/** Everything that goes wrong ends here and leaves in the one error envelope. */
function renderError(ctx: Ctx, e: unknown, log: Logger): void {
  if (isAppError(e)) return sendError(ctx, e.code, e.message, e.details, e.httpStatus);
  if (isBackendUnavailable(e)) {
    log.warn({ err: e }, 'gateway database unavailable');
    return sendError(ctx, 'service_unavailable', 'The gateway cannot reach its database. Retry later.');
  }
  log.error({ err: e }, 'unhandled gateway error');
  sendError(ctx, 'internal_error', 'An unexpected error occurred.');
}

function koaPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}

function scopeFieldDetails(where: 'query' | 'body', obj: unknown): ErrorDetail[] {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return [];
  return SCOPE_FIELDS.filter((f) => Object.prototype.hasOwnProperty.call(obj, f)).map((f) => ({
    field: where === 'body' ? `/${f}` : f,
    issue: 'not_allowed',
    message: `${f} comes from the API key and must not be sent.`,
  }));
}

export function createGatewayApp(deps: GatewayDeps): { app: Koa; router: Router } {
  const { log, metrics } = deps;
  const app = new Koa();
  app.proxy = true;
  app.silent = true;
  const router = new Router();

  // 1. Request id, access log, metrics and the error envelope for everything below.
  app.use(async (ctx: Ctx, next: Next) => {
    const endTimer = metrics.httpDuration.startTimer();
    const given = ctx.get('x-request-id');
    ctx.state.requestId = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.log = log.child({ request_id: ctx.state.requestId });
    ctx.set('Request-Id', ctx.state.requestId);
    metrics.httpInFlight.inc();
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null) {
        sendError(ctx, 'not_found', `There is no route ${ctx.method} ${ctx.path}.`);
      }
    } catch (e) {
      renderError(ctx, e, ctx.state.log);
    } finally {
      metrics.httpInFlight.dec();
      const route = ctx.state.routePath ?? 'unmatched';
      const seconds = endTimer({ method: ctx.method, route, status: String(ctx.status) });
      ctx.state.log.info(
        { method: ctx.method, route, status: ctx.status, duration_ms: Math.round(seconds * 1e6) / 1e3, api_key_id: ctx.state.principal?.apiKeyId },
        'request',
      );
    }
  });

  const parseJson = koaBody({
    json: true,
    jsonLimit: limits.json_body_bytes_max,
    jsonStrict: true,
    urlencoded: false,
    text: false,
    multipart: false,
    patchNode: false,
    patchKoa: true,
    onError: (err: Error) => {
      throw bodyError(err as { status?: number; type?: string });
    },
  });

  const authenticate = async (ctx: Ctx, next: Next) => {
    const header = ctx.get('authorization');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) {
      metrics.authFailures.inc({ reason: header ? 'malformed_header' : 'missing' });
      throw new AppError('unauthorized', header ? 'The Authorization header must be "Bearer <API key>".' : 'An API key is required: send Authorization: Bearer <API key>.');
    }
    const key = m[1];
    if (!parseKey(key)) {
      metrics.authFailures.inc({ reason: 'malformed_key' });
      throw new AppError('unauthorized', 'The API key is malformed: keys start with svc_test_ or svc_live_.');
    }
    const principal = await deps.keys.resolve(key);
    if (!principal || principal.revoked) {
      metrics.authFailures.inc({ reason: principal ? 'revoked' : 'unknown' });
      throw new AppError('unauthorized', principal ? 'The API key has been revoked.' : 'The API key is not valid.');
    }
    if (!principal.appActive) {
      metrics.authFailures.inc({ reason: 'app_disabled' });
      throw new AppError('forbidden', 'The connected app of this key is disabled.');
    }
    ctx.state.principal = principal;
    await next();
  };

  const rateLimit = async (ctx: Ctx, next: Next) => {
    const d = deps.buckets.take(ctx.state.principal!.apiKeyId);
    ctx.set('RateLimit-Limit', String(d.limit));
    ctx.set('RateLimit-Remaining', String(d.remaining));
    ctx.set('RateLimit-Reset', String(d.resetSeconds));
    if (!d.allowed) {
      metrics.rateLimited.inc();
      ctx.set('Retry-After', String(d.retryAfterSeconds));
      throw new AppError('rate_limited', `Rate limit exceeded: ${deps.buckets.ratePerSecond} requests/s with bursts of ${d.limit}. Retry after ${d.retryAfterSeconds}s.`);
    }
    await next();
  };

  const moduleGuidance = (route: RouteDef) => async (ctx: Ctx, next: Next) => {
    if (route.module && !ctx.state.principal!.enabledModules.has(route.module)) {
      if (deps.moduleEnforcement === 'hard') {
        throw new AppError('module_disabled', `The ${route.module} module is not enabled for this organization.`);
      }
      ctx.set('Module-Warning', `module "${route.module}" is not enabled for this organization; enable it in the dashboard`);
    }
    await next();
  };

  const validate = (route: RouteDef) => {
    const params: ValidateFunction | undefined = route.params ? compileBody(route.params) : undefined;
    const query = compileQuery(route.query ?? { type: 'object', properties: {}, additionalProperties: false });
    const hasBody = route.method === 'POST' || route.method === 'PUT';
    const body = route.body ? compileBody(route.body) : compileBody({ type: 'object', properties: {}, additionalProperties: false });
    return async (ctx: Ctx, next: Next) => {
      const q: Record<string, unknown> = { ...ctx.query };
      const b: unknown = hasBody ? (ctx.request.body ?? {}) : undefined;
      const scope = [...scopeFieldDetails('query', q), ...scopeFieldDetails('body', b)];
      if (scope.length) {
        throw new AppError('trusted_scope_field_not_allowed', 'Organization, connected app and environment come from the API key only.', scope);
      }
      if (params && !params(ctx.params)) {
        throw AppError.validation('The path has an invalid parameter.', toDetails(params.errors, true));
      }
      for (const [k, val] of Object.entries(q)) {
        if (Array.isArray(val)) {
          throw AppError.validation(`Query parameter ${k} is given more than once.`, [{ field: k, issue: 'repeated', message: `${k} must be given once.` }]);
        }
      }
      if (!query(q)) throw AppError.validation('The query string is invalid.', toDetails(query.errors, true));
      if (hasBody) {
        if (typeof b !== 'object' || b === null || Array.isArray(b)) {
          throw AppError.validation('The request body must be a JSON object.', [{ field: '/', issue: 'invalid_type', message: 'Expected a JSON object.' }]);
        }
        if (!body(b)) throw AppError.validation('The request body is invalid.', toDetails(body.errors));
      }
      ctx.state.query = q;
      ctx.state.body = b;
      await next();
    };
  };

  const requireJson = async (ctx: Ctx, next: Next) => {
    const length = Number(ctx.get('content-length') || 0);
    const chunked = Boolean(ctx.get('transfer-encoding'));
    if ((length > 0 || chunked) && !ctx.is('application/json', '+json')) {
      throw new AppError('validation_failed', 'Send the body as application/json.', [
        { field: 'Content-Type', issue: 'unsupported_media_type', message: `Content-Type ${ctx.get('content-type') || '(none)'} is not supported.` },
      ], 415);
    }
    await next();
  };

  const idempotent = (route: RouteDef) => async (ctx: Ctx, next: Next) => {
    const key = ctx.get('idempotency-key');
    if (route.method !== 'POST' || !key) return next();
    if (key.length > limits.idempotency_key_length_max) {
      throw AppError.validation('Idempotency-Key is too long.', [
        { field: 'Idempotency-Key', issue: 'too_long', message: `At most ${limits.idempotency_key_length_max} characters.` },
      ]);
    }
    // Routes with their own dedupe (POST /events) get the key forwarded instead (API-DECISIONS §9).
    if (route.ownIdempotency) return next();
    const apiKeyId = ctx.state.principal!.apiKeyId;
    const begin = await deps.idempotency.begin(apiKeyId, key, fingerprint(ctx.method, ctx.path, ctx.state.body));
    if (begin.kind === 'mismatch') {
      throw AppError.conflict('This Idempotency-Key was already used with a different method, path or body.', [
        { field: 'Idempotency-Key', issue: 'reused_with_different_request', message: 'Use a new key for a different request.' },
      ]);
    }
    if (begin.kind === 'in_flight') {
      throw AppError.conflict('A request with this Idempotency-Key is still being processed; retry shortly.', [
        { field: 'Idempotency-Key', issue: 'in_flight', message: 'The first request has not finished.' },
      ]);
    }
    if (begin.kind === 'replay') {
      metrics.idempotentReplays.inc();
      ctx.status = begin.status;
      for (const [h, val] of Object.entries(begin.headers)) ctx.set(h, val);
      ctx.set('Idempotent-Replayed', 'true');
      const replay = JSON.parse(begin.body);
      // Error bodies carry the id of the request that gets them, the replay's own.
      if (replay?.error) replay.error.request_id = ctx.state.requestId;
      ctx.body = replay;
      return;
    }
    try {
      await next();
    } catch (e) {
      renderError(ctx, e, ctx.state.log);
    }
    // The work is done: failing to record it must not turn its answer into an error. If recording
    // fails, the key stays in flight until it goes stale and a retry then runs again (creates are
    // still safe on their external ids).
    try {
      if (ctx.status >= 500) {
        await deps.idempotency.release(apiKeyId, key);
        return;
      }
      const headers: Record<string, string> = {};
      const replayed = ctx.response.get('Idempotent-Replayed');
      if (replayed) headers['Idempotent-Replayed'] = String(replayed);
      // The stored copy drops the request id: a replay carries its own.
      const stored = JSON.parse(JSON.stringify(ctx.body ?? null));
      if (stored?.error) delete stored.error.request_id;
      await deps.idempotency.complete(apiKeyId, key, ctx.status, headers, JSON.stringify(stored));
    } catch (err) {
      ctx.state.log.warn({ err }, 'could not record the Idempotency-Key response');
    }
  };

  const forward = (route: RouteDef) => async (ctx: Ctx) => {
    const p = ctx.state.principal!;
    const req: RpcRequest = {
      ctx: {
        organizationId: p.organizationId,
        connectedAppId: p.connectedAppId,
        environment: p.environment,
        apiKeyId: p.apiKeyId,
        requestId: ctx.state.requestId,
        ...(route.ownIdempotency && ctx.get('idempotency-key') ? { idempotencyKey: ctx.get('idempotency-key') } : {}),
      },
      params: { ...ctx.params },
      query: ctx.state.query ?? {},
      body: ctx.state.body ?? {},
    };
    const reply = await deps.rpc.call(route.rpc!, req);
    if (!reply.ok) return sendError(ctx, reply.error.code, reply.error.message, reply.error.details ?? []);
    ctx.status = reply.status;
    ctx.body = reply.body;
    if (reply.replayed) ctx.set('Idempotent-Replayed', 'true');
  };

  const gatewayHandlers: Record<string, (ctx: Ctx) => void> = {
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

  // The route table: one line per route of contracts' ROUTES, the chain named by its parts.
  for (const route of ROUTES) {
    const mark = async (ctx: Ctx, next: Next) => {
      ctx.state.routePath = route.path;
      await next();
    };
    const chain: Koa.Middleware[] = [mark];
    if (route.auth) chain.push(authenticate, rateLimit, moduleGuidance(route));
    if (route.method === 'POST' || route.method === 'PUT') chain.push(requireJson, parseJson);
    chain.push(validate(route), idempotent(route));
    if (route.rpc) chain.push(forward(route));
    else {
      const h = gatewayHandlers[route.operationId];
      if (!h) throw new Error(`no gateway handler for ${route.operationId}`);
      chain.push(async (ctx: Ctx) => h(ctx));
    }
    router.register(koaPath(route.path), [route.method], chain);
  }

  app.use(router.routes());
  return { app, router };
}
