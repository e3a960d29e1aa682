import { ApiError, errorFromResponse, networkError } from './errors';
import { readScope, scopeHeaders } from './scope';

/** The dashboard's JSON API (docs/dashboard.md "The JSON API"), on this origin. */
export const API_BASE = '/dashboard/api';

export type Query = Record<string, string | number | undefined | null>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** A 401 is the caller's to show (sign-in itself) rather than the signal that the session ended. */
  quiet401?: boolean;
}

/** A list answer: `{ data, pagination }` (API-DECISIONS §11). */
export interface Pagination {
  limit: number;
  offset: number;
  count: number;
  has_more: boolean;
}
export interface ListAnswer<T> {
  data: T[];
  pagination: Pagination;
}

let csrfToken: string | null = null;
let onUnauthorized: (() => void) | null = null;

/** The session's token, sent as `CSRF-Token` on every request that is not a GET. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when a request answers 401: the session ended (expired, signed out elsewhere). */
export function setUnauthorizedHandler(handler: (() => void) | null): void {
  onUnauthorized = handler;
}

export function urlOf(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return `${API_BASE}${path}${qs ? `?${qs}` : ''}`;
}

export function requestHeaders(method: string, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { Accept: 'application/json', ...scopeHeaders(readScope()) };
  if (hasBody) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['CSRF-Token'] = csrfToken;
  return headers;
}

/** A public API write (POST or PATCH under /v1) carries an Idempotency-Key: a retried click is not a second write. */
function idempotencyKey(method: string, path: string): Record<string, string> {
  const write = (method === 'POST' || method === 'PATCH') && path.startsWith('/v1/');
  return write && typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function' ? { 'Idempotency-Key': crypto.randomUUID() } : {};
}

async function readJson(res: Response): Promise<unknown> {
  if (res.status === 204) return null;
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** One request: same-origin cookies, the scope and CSRF headers; a non-2xx answer throws ApiError. */
export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const hasBody = options.body !== undefined;
  let res: Response;
  try {
    res = await fetch(urlOf(path, options.query), {
      method,
      credentials: 'same-origin',
      headers: { ...requestHeaders(method, hasBody), ...idempotencyKey(method, path) },
      ...(hasBody ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch (cause) {
    throw networkError(cause);
  }
  const body = await readJson(res);
  if (!res.ok) {
    const err = errorFromResponse(res.status, body, res.headers.get('Request-Id'));
    if (res.status === 401 && !options.quiet401) onUnauthorized?.();
    throw err;
  }
  return body as T;
}

export const api = {
  get: <T>(path: string, query?: Query) => request<T>('GET', path, { query }),
  post: <T>(path: string, body: unknown = {}, options: RequestOptions = {}) => request<T>('POST', path, { ...options, body }),
  put: <T>(path: string, body: unknown) => request<T>('PUT', path, { body }),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, { body }),
  del: <T>(path: string) => request<T>('DELETE', path),
};

export { ApiError };
