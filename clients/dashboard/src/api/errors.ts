/** An answer of the dashboard's API that was not 2xx, read from the error envelope when it has one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details: unknown = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface Envelope {
  error?: { code?: unknown; message?: unknown; request_id?: unknown; details?: unknown };
}

/** What to say when the envelope is missing (a proxy's page, a cut connection). */
const FALLBACK: Record<number, [string, string]> = {
  400: ['validation_failed', 'The request was not accepted.'],
  401: ['unauthorized', 'Your session has ended. Sign in again.'],
  403: ['forbidden', 'Your role does not allow this.'],
  404: ['not_found', 'Not found.'],
  409: ['conflict', 'This conflicts with the current state.'],
  429: ['rate_limited', 'Too many requests. Wait a moment and try again.'],
  503: ['service_unavailable', 'The service is unavailable. Try again shortly.'],
};

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/** The error of a non-2xx answer: the envelope's code, message and request id, or a plain fallback. */
export function errorFromResponse(status: number, body: unknown, requestIdHeader: string | null = null): ApiError {
  const e = (body && typeof body === 'object' ? (body as Envelope).error : undefined) ?? {};
  const [code, message] = FALLBACK[status] ?? (status >= 500 ? ['internal_error', 'Something went wrong on the server.'] : ['error', `The request failed (${status}).`]);
  return new ApiError(status, str(e.code) ?? code, str(e.message) ?? message, str(e.request_id) ?? requestIdHeader, e.details ?? null);
}

/** The error of a request that got no answer at all. */
export function networkError(cause: unknown): ApiError {
  const why = cause instanceof Error && cause.message ? ` (${cause.message})` : '';
  return new ApiError(0, 'network_error', `The server could not be reached${why}.`, null);
}

/** The sentence shown to the member: the message, the field details when given, and the request id to quote. */
export function describeError(err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  const fields = fieldDetails(err.details);
  const text = fields.length ? `${err.message} ${fields.join('; ')}.` : err.message;
  return err.requestId ? `${text} (request id ${err.requestId})` : text;
}

/** `field: problem` lines from the envelope's details, when it lists them (validation_failed). */
function fieldDetails(details: unknown): string[] {
  const list = Array.isArray(details)
    ? details
    : details && typeof details === 'object' && Array.isArray((details as { errors?: unknown }).errors)
      ? (details as { errors: unknown[] }).errors
      : [];
  return list
    .map((d) => {
      if (!d || typeof d !== 'object') return null;
      const { field, path, message } = d as { field?: unknown; path?: unknown; message?: unknown };
      const where = str(field) ?? str(path);
      const what = str(message);
      return what ? (where ? `${where}: ${what}` : what) : null;
    })
    .filter((x): x is string => x !== null)
    .slice(0, 5);
}
