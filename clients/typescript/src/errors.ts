import type { components } from './schema';

/**
 * One thing wrong with a request (400 validation_failed, 409 with an issue): `field` is a JSON
 * pointer into the body (`/line_items/0/quantity`) or a query parameter's name, `issue` a stable
 * word to branch on (`required`, `unknown_field`, `invalid_format`, …), `message` for people.
 */
export type ErrorDetail = components['schemas']['ErrorDetail'];

/** The error envelope every non-2xx answer carries: `{error: {code, message, details, request_id}}`. */
export interface ErrorBody {
  /** One of the API's codes (`validation_failed`, `not_found`, …), or `http_<status>` when the answer had no envelope. */
  code: string;
  message: string;
  details?: ErrorDetail[];
  request_id?: string;
}

/** The details of an envelope as sent, keeping only entries with a string field and issue. */
function detailsOf(raw: unknown): ErrorDetail[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((d: unknown) => {
    const o = d as Partial<Record<keyof ErrorDetail, unknown>> | null;
    if (!o || typeof o.field !== 'string' || typeof o.issue !== 'string') return [];
    return [{ field: o.field, issue: o.issue, message: typeof o.message === 'string' ? o.message : `${o.field}: ${o.issue}` }];
  });
}

/**
 * An answer outside 2xx, as the API described it. Branch on `code` (stable, machine-readable) or on
 * the subclass (by status); `request_id` is what support asks for.
 */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly request_id: string | undefined;
  /** What was wrong, field by field (empty when the API named none). */
  readonly details: ErrorDetail[];
  readonly headers: Headers;

  constructor(status: number, body: ErrorBody, headers: Headers = new Headers()) {
    super(body.message);
    this.status = status;
    this.code = body.code;
    this.details = body.details ?? [];
    this.request_id = body.request_id ?? headers.get('request-id') ?? undefined;
    this.headers = headers;
  }

  /** The typed error for a response: the subclass its status names, with the envelope's fields. */
  static from(response: Response, body: unknown): ApiError {
    const env = (body as { error?: Partial<ErrorBody> } | undefined)?.error;
    const parsed: ErrorBody = {
      code: typeof env?.code === 'string' ? env.code : `http_${response.status}`,
      message: typeof env?.message === 'string' ? env.message : `HTTP ${response.status} ${response.statusText}`.trim(),
      details: detailsOf(env?.details),
      request_id: typeof env?.request_id === 'string' ? env.request_id : undefined,
    };
    const Ctor = ERROR_BY_STATUS[response.status] ?? (response.status >= 500 ? ServerError : ApiError);
    return new Ctor(response.status, parsed, response.headers);
  }
}

/** 400: the request was refused as it stands (`validation_failed`, `invalid_json`, …); `details` names the fields. */
export class InvalidRequestError extends ApiError {
  override readonly name: string = 'InvalidRequestError';
}
/** 401: no key, or a key that is unknown or revoked. */
export class AuthenticationError extends ApiError {
  override readonly name: string = 'AuthenticationError';
}
/** 403: the key may not do this (`module_disabled`, `forbidden`, …). */
export class PermissionError extends ApiError {
  override readonly name: string = 'PermissionError';
}
/** 404: no such record for this key's organization and environment. */
export class NotFoundError extends ApiError {
  override readonly name: string = 'NotFoundError';
}
/** 409: the record's state forbids it, or an idempotency key / external id was reused with other content. */
export class ConflictError extends ApiError {
  override readonly name: string = 'ConflictError';
}
/** 413, 415, 422 and other 4xx the API may send. */
export class UnprocessableError extends ApiError {
  override readonly name: string = 'UnprocessableError';
}
/** 429: rate limited, after the SDK's own retries ran out. `headers` holds Retry-After and RateLimit-*. */
export class RateLimitError extends ApiError {
  override readonly name: string = 'RateLimitError';
}
/** 5xx, after the SDK's own retries (503 only) ran out. */
export class ServerError extends ApiError {
  override readonly name: string = 'ServerError';
}

const ERROR_BY_STATUS: Record<number, new (status: number, body: ErrorBody, headers: Headers) => ApiError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  413: UnprocessableError,
  415: UnprocessableError,
  422: UnprocessableError,
  429: RateLimitError,
};

/** The request never got an answer (DNS, refused connection, reset, timeout), after the SDK's retries. */
export class ConnectionError extends Error {
  override readonly name: string = 'ConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
