/**
 * The error vocabulary of the public API. Services throw AppError with a code; only the gateway
 * turns a code into an HTTP status (via HTTP_STATUS_BY_CODE), so services never speak HTTP.
 */
export const ERROR_CODES = [
  'validation_failed',
  'signature_invalid',
  'trusted_scope_field_not_allowed',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'period_locked',
  'rate_limited',
  'module_disabled',
  'internal_error',
  'service_unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One problem with one input: field is a JSON pointer (body) or a query/param name. */
export interface ErrorDetail {
  field: string;
  issue: string;
  message: string;
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details: ErrorDetail[];
}

export const HTTP_STATUS_BY_CODE: Record<ErrorCode, number> = {
  validation_failed: 400,
  signature_invalid: 400,
  trusted_scope_field_not_allowed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  /** The write's accounting date is on or before the books' lock date (API-DECISIONS §12). */
  period_locked: 409,
  rate_limited: 429,
  module_disabled: 403,
  internal_error: 500,
  service_unavailable: 503,
};

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  /** Overrides the status the code maps to; only the gateway sets it (413, 415). */
  readonly httpStatus?: number;

  constructor(code: ErrorCode, message: string, details: ErrorDetail[] = [], httpStatus?: number) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.httpStatus = httpStatus;
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, details: this.details };
  }

  static notFound(resource: string, id?: string): AppError {
    return new AppError('not_found', id ? `${resource} ${id} was not found.` : `${resource} was not found.`);
  }

  static validation(message: string, details: ErrorDetail[] = []): AppError {
    return new AppError('validation_failed', message, details);
  }

  static conflict(message: string, details: ErrorDetail[] = []): AppError {
    return new AppError('conflict', message, details);
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
