import type { ErrorBody } from './errors';

export const ENVIRONMENTS = ['test', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/**
 * What only the gateway may assert about a request. Services scope every query by
 * organizationId + environment taken from here, never from params, query or body.
 */
export interface TrustedContext {
  organizationId: string;
  connectedAppId: string;
  environment: Environment;
  apiKeyId: string;
  requestId: string;
  /**
   * The caller's Idempotency-Key header: on routes that dedupe on it themselves (POST /events,
   * uploads) alone; on every other keyed POST or PATCH with idempotencyFingerprint, for the
   * service's record of the key's first answer (libs/kit rpc-idempotency.ts).
   */
  idempotencyKey?: string;
  /** The request's fingerprint (method, path, body) under idempotencyKey: the same key with another one is 409. */
  idempotencyFingerprint?: string;
}

/**
 * The context of a public route forwarded to a service (a payment-processor webhook): there is no
 * API key, so no tenancy; the service finds it from what the request proves (a signed body).
 */
export interface PublicContext {
  requestId: string;
}

/** What the gateway sends a service. RpcRequestOf<op> (rpc-catalogue.ts) fills in the types of one operation. */
export interface RpcRequest<B = unknown, P = Record<string, string>, Q = Record<string, unknown>, C = TrustedContext> {
  ctx: C;
  params: P;
  query: Q;
  body: B;
}

export interface RpcOk<T = unknown> {
  ok: true;
  /** The only statuses a service may choose; on 204 the gateway sends no body. */
  status: 200 | 201 | 202 | 204;
  body: T;
  /** True when the reply repeats an earlier effect (external id replay, repeated action). */
  replayed?: boolean;
  /** A download route's file: its bytes (base64) replace `body`, sent with this type and name. */
  bodyBase64?: string;
  contentType?: string;
  filename?: string;
  /** A download route's file as a short-lived URL the gateway streams from (bytes never travel over NATS). */
  fileUrl?: string;
  /** Hex SHA-256 of the file: the gateway sends it as ETag and Digest. */
  sha256?: string;
  /** True when the reply is the kept first answer to the request's Idempotency-Key (API-DECISIONS §2). */
  keyReplayed?: boolean;
}

export interface RpcFail {
  ok: false;
  error: ErrorBody;
  /** As RpcOk.keyReplayed: a kept 4xx answer replayed. */
  keyReplayed?: boolean;
}

export type RpcReply<T = unknown> = RpcOk<T> | RpcFail;

export interface Pagination {
  limit: number;
  offset: number;
  count: number;
  has_more: boolean;
}

/** The member of a page of records: the plural of the record's member (customer → customers, processor_payout → processor_payouts: SPEC.md §1). */
export function pluralOf<N extends string>(name: N): `${N}s` {
  return `${name}s`;
}

/** A record's member in words, as a message names it (processor_payout → Processor payout). */
export function labelOf(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `{data: x, <name>: x}`: the single-resource envelope of SPEC.md §1. */
export function single<N extends string, T>(name: N, value: T): { data: T } & Record<N, T> {
  return { data: value, [name]: value } as { data: T } & Record<N, T>;
}

/** `{data: x, <name>: x, action: {type, status: 'completed'}}`: the reply of an action route (post, reverse). */
export function actionReply<N extends string, T, A extends string>(name: N, value: T, type: A): { data: T; action: { type: A; status: 'completed' } } & Record<N, T> {
  return { ...single(name, value), action: { type, status: 'completed' as const } };
}

/** `{data: [...], <plural>: [...], pagination}`: the list envelope of SPEC.md §1. */
export function list<N extends string, T>(plural: N, items: T[], pagination: Pagination): { data: T[]; pagination: Pagination } & Record<N, T[]> {
  return { data: items, [plural]: items, pagination } as { data: T[]; pagination: Pagination } & Record<N, T[]>;
}

/**
 * Page over items fetched with limit + 1 (so has_more needs no count query), also bounded in bytes:
 * items stop before their JSON passes maxBytes (always at least one), and has_more is then true.
 */
export function pageWithin<T>(rows: T[], limit: number, offset: number, maxBytes: number): { items: T[]; pagination: Pagination } {
  const items: T[] = [];
  let bytes = 0;
  for (const row of rows.slice(0, limit)) {
    bytes += Buffer.byteLength(JSON.stringify(row));
    if (items.length > 0 && bytes > maxBytes) return { items, pagination: { limit, offset, count: items.length, has_more: true } };
    items.push(row);
  }
  return { items, pagination: { limit, offset, count: items.length, has_more: rows.length > limit } };
}

/** Page over rows fetched with limit + 1, so has_more needs no count query. */
export function page<T>(rows: T[], limit: number, offset: number): { items: T[]; pagination: Pagination } {
  const items = rows.slice(0, limit);
  return { items, pagination: { limit, offset, count: items.length, has_more: rows.length > limit } };
}
