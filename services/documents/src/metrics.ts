import { Counter } from 'prom-client';
import type { ServiceMetrics } from '@acct/kit';

interface DocumentsMetrics {
  /** S3 calls that failed, by operation (PutObject, GetObject, HeadObject, DeleteObject, HeadBucket, presign). */
  s3Errors: Counter<'operation'>;
}

const made = new WeakMap<object, DocumentsMetrics>();

/** The documents service's own metrics (deploy/README.md, "Metrics"); registered once per registry. */
export function documentsMetrics(metrics: ServiceMetrics): DocumentsMetrics {
  const existing = made.get(metrics.registry);
  if (existing) return existing;
  const m: DocumentsMetrics = {
    s3Errors: new Counter({
      name: 's3_errors_total',
      help: 'S3 calls that failed (error answer, unreachable or timed out), by operation; a missing object (404) is not counted.',
      labelNames: ['operation'],
      registers: [metrics.registry],
    }),
  };
  made.set(metrics.registry, m);
  return m;
}
