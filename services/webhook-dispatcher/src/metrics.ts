import { Counter, Gauge, Histogram } from 'prom-client';
import type { Orm, ServiceMetrics } from '@acct/kit';
import { backlog } from './queries/workers';

export interface WebhookMetrics {
  deliveries: Counter<'outcome'>;
  attempts: Counter<'outcome'>;
  attemptDuration: Histogram<'outcome'>;
}

const made = new WeakMap<object, WebhookMetrics>();

/** Deliveries by outcome, attempt latency, and the backlog (read from Postgres at scrape time); once per registry. */
export function webhookMetrics(metrics: ServiceMetrics | undefined, orm: Orm): WebhookMetrics {
  const existing = metrics && made.get(metrics.registry);
  if (existing) return existing;
  const m = createWebhookMetrics(metrics, orm);
  if (metrics) made.set(metrics.registry, m);
  return m;
}

function createWebhookMetrics(metrics: ServiceMetrics | undefined, orm: Orm): WebhookMetrics {
  const registers = metrics ? [metrics.registry] : [];
  let last: ReturnType<typeof backlog> | null = null;
  const read = () => (last ??= backlog(orm.em.fork()).finally(() => setTimeout(() => (last = null), 100)));
  new Gauge({
    name: 'webhook_deliveries_pending',
    help: 'Deliveries not yet delivered or failed',
    registers,
    async collect() {
      this.set((await read()).pending);
    },
  });
  new Gauge({
    name: 'webhook_oldest_pending_age_seconds',
    help: 'Age of the oldest pending delivery',
    registers,
    async collect() {
      this.set((await read()).oldestAgeSeconds);
    },
  });
  // Due: pending deliveries whose next attempt is past (a retry waiting for its time is not);
  // a dispatcher that keeps up holds these near 0 (webhook alerts, deploy/RUNBOOK.md).
  new Gauge({
    name: 'webhook_deliveries_due',
    help: 'Pending deliveries whose attempt is due now and not yet claimed',
    registers,
    async collect() {
      this.set((await read()).due);
    },
  });
  new Gauge({
    name: 'webhook_oldest_due_seconds',
    help: 'How long the most overdue delivery has been due (0 when none is)',
    registers,
    async collect() {
      this.set((await read()).oldestDueSeconds);
    },
  });
  return {
    deliveries: new Counter({ name: 'webhook_deliveries_total', help: 'Deliveries finished, by outcome (delivered, failed)', labelNames: ['outcome'], registers }),
    attempts: new Counter({ name: 'webhook_attempts_total', help: 'Delivery attempts, by outcome (success, retry, failed)', labelNames: ['outcome'], registers }),
    attemptDuration: new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Duration of one delivery attempt',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
  };
}
