import type { ValidateFunction } from 'ajv';
import { AppError, type ErrorDetail, type RouteDef, SCOPE_FIELDS, canonicalUuids, compileBody, compileQuery, queryIntegerDetails, toDetails } from '@acct/contracts';
import { kindOf, takesBody } from '../route-kind';
import type { Middleware } from './state';

const NOTHING = { type: 'object', properties: {}, additionalProperties: false } as const;

function scopeFieldDetails(where: 'query' | 'body', obj: unknown): ErrorDetail[] {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return [];
  return SCOPE_FIELDS.filter((f) => Object.prototype.hasOwnProperty.call(obj, f)).map((f) => ({
    field: where === 'body' ? `/${f}` : f,
    issue: 'not_allowed',
    message: `${f} comes from the API key and must not be sent.`,
  }));
}

/**
 * Refuses scope fields (they come from the API key only), then checks path, query and JSON body
 * against the route's schemas and leaves the typed query and body in ctx.state. An upload's body is
 * a stream for its handler, and a raw route's body bytes for its service, not JSON: only their path
 * and query are checked.
 */
export function validate(route: RouteDef): Middleware {
  const params: ValidateFunction | undefined = route.params ? compileBody(route.params) : undefined;
  const querySchema = route.query ?? NOTHING;
  const query = compileQuery(querySchema);
  const hasBody = takesBody(route) && kindOf(route) !== 'upload' && kindOf(route) !== 'raw';
  const body = compileBody(route.body ?? NOTHING);
  return async (ctx, next) => {
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
    const notDecimal = queryIntegerDetails(querySchema, q);
    if (notDecimal.length) throw AppError.validation('The query string is invalid.', notDecimal);
    if (!query(q)) throw AppError.validation('The query string is invalid.', toDetails(query.errors, true));
    if (hasBody) {
      if (typeof b !== 'object' || b === null || Array.isArray(b)) {
        throw AppError.validation('The request body must be a JSON object.', [{ field: '/', issue: 'invalid_type', message: 'Expected a JSON object.' }]);
      }
      if (!body(b)) throw AppError.validation('The request body is invalid.', toDetails(body.errors));
    }
    // One spelling of every id from here on (an upper-case UUID is the same record).
    if (route.params) canonicalUuids(route.params, ctx.params);
    canonicalUuids(querySchema, q);
    if (hasBody) canonicalUuids(route.body ?? NOTHING, b);
    ctx.state.query = q;
    ctx.state.body = b;
    await next();
  };
}
