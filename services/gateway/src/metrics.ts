import { Counter, Gauge, Histogram } from 'prom-client';
import { LATENCY_BUCKETS, createMetrics, type ServiceMetrics } from '@acct/kit';

export interface GatewayMetrics extends ServiceMetrics {
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  httpInFlight: Gauge;
  rateLimited: Counter;
  clientRateLimited: Counter;
  rateLimitStoreErrors: Counter;
  keyLookups: Counter<'result'>;
  idempotentReplays: Counter;
  authFailures: Counter<'reason'>;
}

export function createGatewayMetrics(withDefaults = true): GatewayMetrics {
  const base = createMetrics('gateway', withDefaults);
  const registers = [base.registry];
  return {
    ...base,
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Public HTTP request duration by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    httpInFlight: new Gauge({ name: 'http_requests_in_flight', help: 'Public HTTP requests being served.', registers }),
    rateLimited: new Counter({ name: 'http_rate_limited_total', help: 'Requests refused with 429 by the per-key limit.', registers }),
    rateLimitStoreErrors: new Counter({
      name: 'rate_limit_store_errors_total',
      help: 'Syncs of the shared rate-limit buckets that failed (limits fall back to per replica meanwhile).',
      registers,
    }),
    clientRateLimited: new Counter({
      name: 'http_client_rate_limited_total',
      help: 'Requests refused with 429 by the per-client-address limit (before authentication).',
      registers,
    }),
    keyLookups: new Counter({
      name: 'auth_key_lookups_total',
      help: 'API key resolutions by result: cached (a known key), cached_unknown (negative cache), database.',
      labelNames: ['result'],
      registers,
    }),
    idempotentReplays: new Counter({
      name: 'http_idempotent_replays_total',
      help: 'POSTs answered from a stored Idempotency-Key response.',
      registers,
    }),
    authFailures: new Counter({
      name: 'http_auth_failures_total',
      help: 'Requests refused by authentication, by reason.',
      labelNames: ['reason'],
      registers,
    }),
  };
}
