import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface ServiceMetrics {
  registry: Registry;
  rpcServerDuration: Histogram<'operation' | 'outcome'>;
  rpcClientDuration: Histogram<'operation' | 'outcome'>;
  outboxPublished: Counter<'kind'>;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(service: string, withDefaults = true): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (withDefaults) collectDefaultMetrics({ register: registry });
  return {
    registry,
    rpcServerDuration: new Histogram({
      name: 'nats_rpc_server_duration_seconds',
      help: 'Time to handle one NATS request, by operation and outcome (ok, error code).',
      labelNames: ['operation', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    rpcClientDuration: new Histogram({
      name: 'nats_rpc_client_duration_seconds',
      help: 'Round trip of one NATS request as seen by the caller, by operation and outcome.',
      labelNames: ['operation', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    outboxPublished: new Counter({
      name: 'outbox_published_total',
      help: 'Outbox rows published to JetStream, by who published them (inline or relay).',
      labelNames: ['kind'],
      registers: [registry],
    }),
  };
}

export { LATENCY_BUCKETS };
