import type { ValidateFunction } from 'ajv';
import { findBadInput, jsonPointer, parameterName } from './bad-input';
import { ENVIRONMENTS } from './envelope';
import { AppError, type ErrorDetail } from './errors';
import type { RpcDef } from './operations';
import { RPC_CATALOGUE, type RpcOperation } from './rpc-catalogue';
import type { JsonSchema } from './schemas/common';
import { UUID, canonicalUuids, compileBody, compileQuery, toDetails } from './validate';

/**
 * The bus as a trust boundary for request/reply: a service checks every request it takes against
 * its operation's entry in RPC_CATALOGUE before a handler sees it, as the gateway checked it on
 * the way in. A request made by hand on the bus (not through the gateway: another process with
 * credentials for the subject, a replayed or corrupted message) then gets the same 400
 * validation_failed a caller of the route would, never a database error turned into a 500: an id
 * spelled `urn:uuid:…`, a NUL, a lone surrogate, a tenancy that is not a uuid, a body the schema
 * refuses. Ids are lower-cased like at the gateway (canonicalUuids).
 */

interface Compiled {
  params?: ValidateFunction;
  query: ValidateFunction;
  body: ValidateFunction;
  def: RpcDef;
}

/** What an operation without a query or a body takes: nothing (the gateway sends {}). */
const NOTHING: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

const compiled = new Map<RpcOperation, Compiled>();

function compiledOf(op: RpcOperation): Compiled {
  let c = compiled.get(op);
  if (!c) {
    const def = RPC_CATALOGUE[op] as RpcDef;
    c = {
      def,
      params: def.params ? compileBody(def.params) : undefined,
      query: compileQuery((def.query as JsonSchema | undefined) ?? NOTHING),
      body: compileBody((def.body as JsonSchema | undefined) ?? NOTHING),
    };
    compiled.set(op, c);
  }
  return c;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const refuse = (message: string, details: ErrorDetail[]) => AppError.validation(message, details);

/** Why the request's context cannot be served: the tenancy must be what the gateway would send. */
function contextProblem(def: RpcDef, ctx: unknown): AppError | null {
  const bad = (field: string, message: string) => refuse('The request context is invalid.', [{ field: `ctx.${field}`, issue: 'invalid', message }]);
  if (!isObject(ctx)) return bad('', 'The request carries no context object.');
  for (const [k, v] of Object.entries(ctx)) {
    if (v !== undefined && typeof v !== 'string') return bad(k, `${k} must be a string.`);
  }
  const inCtx = findBadInput(ctx, parameterName, 1);
  if (inCtx) return bad(inCtx.field, inCtx.message);
  if (def.public) return null;
  if (typeof ctx.organizationId !== 'string' || !UUID.test(ctx.organizationId)) return bad('organizationId', 'organizationId must be a uuid.');
  if (!(ENVIRONMENTS as readonly unknown[]).includes(ctx.environment)) return bad('environment', `environment must be one of ${ENVIRONMENTS.join(', ')}.`);
  ctx.organizationId = ctx.organizationId.toLowerCase();
  return null;
}

/**
 * Checks (and canonicalizes in place) a request to `op` as it came off the bus; the 400 to answer
 * instead of serving it, or null. The same checks as the gateway's on the route (input.ts and
 * validate.ts there): no NUL or lone surrogate, nesting within limits, then the operation's schemas.
 */
export function rpcRequestProblem(op: RpcOperation, req: unknown): AppError | null {
  if (!Object.prototype.hasOwnProperty.call(RPC_CATALOGUE, op)) return null; // not an operation of the catalogue (a test's fake)
  const c = compiledOf(op);
  if (!isObject(req)) return refuse('The request is not a JSON object.', [{ field: '/', issue: 'invalid_type', message: 'Expected a JSON object.' }]);
  const ctxProblem = contextProblem(c.def, req.ctx);
  if (ctxProblem) return ctxProblem;
  const params = req.params ?? {};
  const query = req.query ?? {};
  if (!isObject(params)) return refuse('The path has an invalid parameter.', [{ field: 'params', issue: 'invalid_type', message: 'Expected an object.' }]);
  if (!isObject(query)) return refuse('The query string is invalid.', [{ field: 'query', issue: 'invalid_type', message: 'Expected an object.' }]);
  const inParams = findBadInput(params, parameterName, 2);
  if (inParams) return refuse('The path has an invalid parameter.', [inParams]);
  const inQuery = findBadInput(query, parameterName, 2);
  if (inQuery) return refuse('The query string is invalid.', [inQuery]);
  const inBody = findBadInput(req.body, jsonPointer);
  if (inBody) return refuse('The request body is invalid.', [inBody]);
  if (c.params && !c.params(params)) return refuse('The path has an invalid parameter.', toDetails(c.params.errors, true));
  if (!c.query(query)) return refuse('The query string is invalid.', toDetails(c.query.errors, true));
  if (!c.body(req.body ?? {})) return refuse('The request body is invalid.', toDetails(c.body.errors));
  if (c.def.params) canonicalUuids(c.def.params, params);
  if (c.def.query) canonicalUuids(c.def.query, query);
  if (c.def.body) req.body = canonicalUuids(c.def.body, req.body);
  req.params = params;
  req.query = query;
  return null;
}
