import createClient, { type Client as FetchClient, type ClientPathsWithMethod, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import { ApiError, ConnectionError } from './errors';
import type { paths } from './schema';
import { webhooks } from './webhooks';

export type { paths };
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type PathsOf<M extends Method> = ClientPathsWithMethod<FetchClient<paths>, M>;
type Op<P, M extends Method> = P extends keyof paths ? (M extends keyof paths[P] ? paths[P][M] : never) : never;
type InitOf<P, M extends Method> = P extends keyof paths ? MaybeOptionalInit<paths[P], M> : never;
/** The init argument: optional when the operation needs no parameter or body. */
type InitArgs<P, M extends Method> = undefined extends InitOf<P, M> ? [init?: InitOf<P, M> & CallOptions] : [init: InitOf<P, M> & CallOptions];
/** The success body of an operation (the `data` openapi-fetch would give), whatever shape the document names. */
export type Success<P, M extends Method> =
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- openapi-fetch's own constraint
  Op<P, M> extends Record<string | number, any> ? Exclude<FetchResponse<Op<P, M>, undefined, `${string}/${string}`>['data'], undefined> : never;
type Call<M extends Method> = <P extends PathsOf<M>>(path: P, ...init: InitArgs<P, M>) => Promise<Success<P, M>>;

/** Every GET whose success body is a list envelope `{data: [...], pagination}`. */
export type ListPath = { [P in PathsOf<'get'>]: Success<P, 'get'> extends { data: readonly unknown[]; pagination: unknown } ? P : never }[PathsOf<'get'>];
/** The item type of a list. */
export type ListItem<P extends ListPath> = Success<P, 'get'> extends { data: readonly (infer T)[] } ? T : never;
type QueryOf<P extends ListPath> = Op<P, 'get'> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/**
 * A list's filters and page size, and where to start: after `starting_after` (walking forward, the
 * list's own order) or before `ending_before` (walking backward, nearest to the cursor first).
 */
export type ListQuery<P extends ListPath> = QueryOf<P>;

export interface ClientOptions {
  /** `svc_test_…` or `svc_live_…`: sent as `Authorization: Bearer` on every request. */
  apiKey: string;
  /** The gateway, e.g. `https://api.example.com` (default `http://127.0.0.1:8080`). */
  baseUrl?: string;
  /** Retries after 429, 503 or a network error (default 2; 0 turns retrying off). */
  maxRetries?: number;
  /** First backoff in ms (default 500), doubled per retry with full jitter, at most maxRetryDelayMs. */
  initialRetryDelayMs?: number;
  /** Longest wait between attempts, Retry-After included (default 60 000 ms). */
  maxRetryDelayMs?: number;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** The fetch to use (default globalThis.fetch): a proxy agent, a test double. */
  fetch?: (request: Request) => Promise<Response>;
  /** How to wait between attempts (default setTimeout); tests pass a recorder. */
  sleep?: (ms: number) => Promise<void>;
}

/** Request options the SDK adds to openapi-fetch's: an explicit idempotency key. */
export interface CallOptions {
  /** Sent as Idempotency-Key; default a random UUID per call, the same on each retry of it. */
  idempotencyKey?: string;
}

const RETRY_STATUSES = new Set([429, 503]);
const IDEMPOTENT_METHODS = new Set(['POST', 'PATCH']);

/**
 * The API client: the key once, an Idempotency-Key on every POST and PATCH, retries with backoff on
 * 429 / 503 / network errors honouring Retry-After, typed errors ({@link ApiError}) and `list()`, an
 * async iterator over every page of a list. The methods take openapi-fetch's arguments
 * (`{ params: { path, query }, body, headers }`) and resolve with the success body or throw.
 */
export class Client {
  /** The underlying openapi-fetch client (same auth, idempotency and retries; returns `{data, error, response}`). */
  readonly raw: FetchClient<paths>;
  /** Webhook signature checks (no key needed: also exported on their own). */
  readonly webhooks = webhooks;
  private readonly options: Required<Omit<ClientOptions, 'headers' | 'baseUrl'>>;

  constructor(options: ClientOptions) {
    if (!options?.apiKey) throw new TypeError('Client: apiKey is required');
    const fetchImpl = options.fetch ?? ((r: Request) => globalThis.fetch(r));
    this.options = {
      apiKey: options.apiKey,
      maxRetries: options.maxRetries ?? 2,
      initialRetryDelayMs: options.initialRetryDelayMs ?? 500,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 60_000,
      fetch: fetchImpl,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    };
    this.raw = createClient<paths>({
      baseUrl: (options.baseUrl ?? 'http://127.0.0.1:8080').replace(/\/+$/, ''),
      headers: { ...options.headers, authorization: `Bearer ${options.apiKey}` },
      fetch: (request) => this.send(request),
    });
  }

  readonly GET: Call<'get'> = (path, ...init) => this.call('get', path, init[0]);
  readonly POST: Call<'post'> = (path, ...init) => this.call('post', path, init[0]);
  readonly PUT: Call<'put'> = (path, ...init) => this.call('put', path, init[0]);
  readonly PATCH: Call<'patch'> = (path, ...init) => this.call('patch', path, init[0]);
  readonly DELETE: Call<'delete'> = (path, ...init) => this.call('delete', path, init[0]);

  /**
   * Every item of a list, page after page, for
   * `for await (const c of client.list('/api/v1/customers', { limit: 100 }))`: forward with
   * `starting_after` the last item of the page before. Given `ending_before`, it walks backward
   * instead (as Stripe's auto-pagination does): each page's items nearest to the cursor first, then
   * `ending_before` the first item of that page, until `has_more` (more in the direction walked) is false.
   */
  async *list<P extends ListPath>(path: P, query?: ListQuery<P>): AsyncGenerator<ListItem<P>, void, undefined> {
    let params: Record<string, unknown> = { ...(query as Record<string, unknown> | undefined) };
    const backward = typeof params.ending_before === 'string';
    for (;;) {
      const page = (await this.call('get', path, { params: { query: params } })) as unknown as {
        data: ListItem<P>[];
        pagination?: { offset?: number; count?: number; has_more?: boolean };
      };
      const items = backward ? [...page.data].reverse() : page.data;
      for (const item of items) yield item;
      const last = items[items.length - 1] as { id?: unknown } | undefined;
      if (!page.pagination?.has_more || last === undefined) return;
      if (typeof last.id === 'string') {
        const { offset: _offset, starting_after: _after, ending_before: _before, ...rest } = params;
        params = { ...rest, [backward ? 'ending_before' : 'starting_after']: last.id };
      } else {
        params = { ...params, offset: (page.pagination.offset ?? 0) + (page.pagination.count ?? page.data.length) };
      }
    }
  }

  private async call(method: Method, path: string, init: unknown): Promise<never> {
    const { idempotencyKey, headers, ...rest } = (init ?? {}) as CallOptions & { headers?: Record<string, string> };
    const h = { ...headers, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) };
    const request = this.raw.request as unknown as (m: string, p: string, i: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const { data, error, response } = await request(method, path, { ...rest, headers: h });
    if (!response.ok || error !== undefined) throw ApiError.from(response, error);
    return data as never;
  }

  /** One logical request: auth and idempotency headers, then attempts until an answer that is not retried. */
  private async send(request: Request): Promise<Response> {
    const headers = new Headers(request.headers);
    headers.set('authorization', `Bearer ${this.options.apiKey}`);
    if (IDEMPOTENT_METHODS.has(request.method) && !headers.has('idempotency-key')) headers.set('idempotency-key', randomId());
    const body = request.body === null ? undefined : await request.arrayBuffer();
    for (let attempt = 0; ; attempt++) {
      const retriesLeft = attempt < this.options.maxRetries;
      let response: Response;
      try {
        response = await this.options.fetch(new Request(request.url, { method: request.method, headers, body, signal: request.signal }));
      } catch (e) {
        if (request.signal?.aborted) throw e;
        if (!retriesLeft) throw new ConnectionError(`${request.method} ${request.url}: ${(e as Error)?.message ?? String(e)}`, { cause: e });
        await this.options.sleep(this.backoff(attempt));
        continue;
      }
      if (!RETRY_STATUSES.has(response.status) || !retriesLeft) return response;
      const wait = retryAfterMs(response.headers.get('retry-after')) ?? this.backoff(attempt);
      await response.body?.cancel().catch(() => undefined);
      await this.options.sleep(Math.min(wait, this.options.maxRetryDelayMs));
    }
  }

  /** Exponential backoff with jitter: a random wait between half and all of initial × 2^attempt, capped. */
  private backoff(attempt: number): number {
    const ceiling = Math.min(this.options.maxRetryDelayMs, this.options.initialRetryDelayMs * 2 ** attempt);
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function randomId(): string {
  return globalThis.crypto.randomUUID();
}
