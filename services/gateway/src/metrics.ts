import { Counter, Gauge, Histogram } from 'prom-client';
import { LATENCY_BUCKETS, createMetrics, type ServiceMetrics } from '@acct/kit';

export interface GatewayMetrics extends ServiceMetrics {
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  httpInFlight: Gauge;
  rateLimited: Counter;
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
    rateLimited: new Counter({ name: 'http_rate_limited_total', help: 'Requests refused with 429.', registers }),
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
