import type { ValidateFunction } from 'ajv';
import { AppError, type JsonSchema, compileBody, compileQuery, limits, toDetails } from '@acct/contracts';
import { type ListQuery, listQuery, pageInMemory } from '@acct/kit';
import { parseJson, requireMediaType } from '../middlewares/body';
import { checkInput } from '../middlewares/input';
import type { Ctx, Middleware } from '../middlewares/state';

/** The dashboard API's request plumbing: bodies, queries, lists, 429s. */

/** A 429 that tells when to retry: the dashboard's error middleware turns it into Retry-After. */
export class RateLimited extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', `${message} Retry after ${retryAfterSeconds}s.`);
  }
}

/** Sets Retry-After for a RateLimited thrown below (the gateway's errors middleware renders it). */
export const retryAfter: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (e) {
    if (e instanceof RateLimited) ctx.set('Retry-After', String(e.retryAfterSeconds));
    throw e;
  }
};

/** Path, query and (for a body) JSON checks shared with the public API: NUL, lone surrogates, encoding. */
export const noBody: Middleware = checkInput({ hasBody: false });

/**
 * A JSON body (application/json, strict UTF-8, ≤ 1 MiB, as the public API reads it), free of NUL and
 * lone surrogates, valid against `schema` (unknown fields refused): 4xx validation_failed otherwise.
 */
export function jsonBody(schema: JsonSchema): Middleware[] {
  const check: ValidateFunction = compileBody({ ...schema, additionalProperties: false });
  const validate: Middleware = async (ctx, next) => {
    const b = ctx.request.body as unknown;
    if (typeof b !== 'object' || b === null || Array.isArray(b)) {
      throw AppError.validation('The request body must be a JSON object.', [{ field: '/', issue: 'invalid_type', message: 'Expected a JSON object.' }]);
    }
    if (!check(b)) throw AppError.validation('The request body is invalid.', toDetails(check.errors));
    ctx.state.body = b;
    await next();
  };
  return [requireMediaType('application/json'), parseJson, checkInput({ hasBody: true }), validate];
}

/** A JSON body read and checked as jsonBody does, its fields left to the handler to check. */
export const passThroughJson: Middleware[] = [requireMediaType('application/json'), parseJson, checkInput({ hasBody: true })];

export const body = <T>(ctx: Ctx): T => ctx.state.body as T;

export const EMAIL_MAX = 254;

/** An email as given, trimmed: ≤ 254 characters, one @ with text either side, no spaces (400 otherwise). */
export function email(raw: string, field = '/email'): string {
  const e = raw.trim();
  if (e.length > EMAIL_MAX || !/^[^\s@]+@[^\s@]+$/.test(e)) {
    throw AppError.validation('The email is not valid.', [{ field, issue: 'invalid_format', message: `An email address of at most ${EMAIL_MAX} characters.` }]);
  }
  return e;
}

export const emailSchema = { type: 'string', minLength: 3, maxLength: 320 } as const;

const LIST_QUERY = compileQuery({
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    starting_after: { type: 'string', format: 'uuid' },
    ending_before: { type: 'string', format: 'uuid' },
  },
  additionalProperties: false,
});

/** limit (1–100, 25), starting_after / ending_before (ids of the list), as the public lists (400 otherwise). */
export function listParams(ctx: Ctx): ListQuery {
  const q: Record<string, unknown> = { ...ctx.query };
  for (const [k, v] of Object.entries(q)) {
    if (Array.isArray(v)) throw AppError.validation(`Query parameter ${k} is given more than once.`, [{ field: k, issue: 'repeated', message: `${k} must be given once.` }]);
  }
  if (q.limit !== undefined && (typeof q.limit !== 'string' || !/^(0|[1-9][0-9]*)$/.test(q.limit))) {
    throw AppError.validation('The query string is invalid.', [{ field: 'limit', issue: 'invalid_type', message: 'limit must be an integer.' }]);
  }
  if (!LIST_QUERY(q)) throw AppError.validation('The query string is invalid.', toDetails(LIST_QUERY.errors, true));
  return listQuery(q);
}

/** A short list held in memory, in list order: `{ data, pagination }`. */
export function sendList<T extends { id: string }>(ctx: Ctx, all: T[]): void {
  const p = pageInMemory(all, listParams(ctx), limits.list_page_bytes_max);
  ctx.body = { data: p.items, pagination: p.pagination };
}
