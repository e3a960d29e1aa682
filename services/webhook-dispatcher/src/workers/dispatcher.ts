import { type Logger, type Orm, decryptSecret, logRetriedFailure } from '@acct/kit';
import type { Sender } from '../adapters/sender';
import type { WebhookConfig } from '../config';
import { retryDelay } from '../domain/schedule';
import { claimDue, recordOutcome } from '../flows/deliveries';
import type { WebhookMetrics } from '../metrics';
import type { ClaimedDelivery } from '../queries/workers';

/**
 * The delivery workers of one process: claim due deliveries (SKIP LOCKED, leased past the send's
 * timeout), send each, record the attempt and the outcome. At most `concurrency` sends in flight,
 * at most `endpointConcurrency` per endpoint, so a slow endpoint holds only its own slots.
 */
export class Dispatcher {
  private readonly inflight = new Map<string, number>();
  private total = 0;
  private timer?: NodeJS.Timeout;
  private stopped = true;
  private ticking = false;
  private again = false;
  private readonly sends = new Set<Promise<void>>();

  constructor(private readonly o: { orm: Orm; log: Logger; config: WebhookConfig; sender: Sender; metrics: WebhookMetrics }) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** New deliveries were committed: look now rather than at the next poll. */
  wake(): void {
    if (!this.stopped) this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    try {
      do {
        this.again = false;
        const free = this.o.config.concurrency - this.total;
        if (free <= 0) break;
        const { endpointConcurrency, timeoutMs, leaseMarginMs = 30_000 } = this.o.config;
        const saturated = [...this.inflight].filter(([, n]) => n >= endpointConcurrency).map(([id]) => id);
        const claimed = await claimDue(this.o.orm.em.fork(), {
          limit: free,
          leaseMs: timeoutMs + leaseMarginMs,
          saturated,
          slots: (id) => endpointConcurrency - (this.inflight.get(id) ?? 0),
        });
        for (const d of claimed) this.launch(d);
        if (claimed.length === free) this.again = true;
      } while (this.again && !this.stopped);
    } catch (err) {
      logRetriedFailure(this.o.log, err, {}, 'claiming deliveries failed');
    } finally {
      this.ticking = false;
      this.schedule(this.o.config.pollIntervalMs);
    }
  }

  private launch(d: ClaimedDelivery): void {
    this.total++;
    this.inflight.set(d.endpoint_id, (this.inflight.get(d.endpoint_id) ?? 0) + 1);
    const p = this.deliver(d)
      .catch((err) => logRetriedFailure(this.o.log, err, { delivery_id: d.id }, 'delivery bookkeeping failed; the lease will retry it'))
      .finally(() => {
        this.total--;
        const n = (this.inflight.get(d.endpoint_id) ?? 1) - 1;
        if (n <= 0) this.inflight.delete(d.endpoint_id);
        else this.inflight.set(d.endpoint_id, n);
        this.sends.delete(p);
        this.wake();
      });
    this.sends.add(p);
  }

  private async deliver(d: ClaimedDelivery): Promise<void> {
    const { config, sender, metrics, log } = this.o;
    const secret = decryptSecret(config.secretKey, d.endpoint_id, d.secret_encrypted);
    // Both secrets of the endpoint, AAD-bound to it, sign while a rotation overlaps.
    const previousSecret = d.previous_secret_encrypted === null ? undefined : decryptSecret(config.secretKey, d.endpoint_id, d.previous_secret_encrypted);
    const result = await sender.send({ url: d.url, environment: d.environment, body: d.body, deliveryId: d.id, secret, previousSecret });
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    // A manual attempt (POST …/retry) uses up none of the schedule: the delay after a failure
    // counts scheduled attempts only, and a failed or delivered delivery returns to that status.
    const resume = !ok && d.manual_attempt && d.resume_status !== null;
    const scheduled = Math.max(1, d.attempt_count - d.manual_attempts);
    const retryIn = ok || resume ? null : retryDelay(config.retrySchedule, scheduled);
    const outcome = ok ? 'success' : retryIn === null ? 'failed' : 'retry';
    const disabled = await recordOutcome(this.o.orm.em.fork(), d, result, { ok, retryInMs: retryIn, disableAfterMs: config.disableAfterMs, resume });
    metrics.attempts.inc({ outcome });
    metrics.attemptDuration.observe({ outcome }, result.durationMs / 1000);
    if (ok) metrics.deliveries.inc({ outcome: 'delivered' });
    else if (retryIn === null && !resume) metrics.deliveries.inc({ outcome: 'failed' });
    log.debug({ delivery_id: d.id, endpoint_id: d.endpoint_id, attempt: d.attempt_count, status_code: result.statusCode, error: result.error, outcome }, 'webhook attempt');
    if (disabled) log.warn({ endpoint_id: d.endpoint_id }, 'endpoint disabled: every delivery failed for too long');
  }

  /** Stops claiming and waits for the sends in flight (their leases cover a crash instead). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.sends]);
  }
}
