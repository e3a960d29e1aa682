import { type Logger, type Orm, decryptSecret } from '@acct/kit';
import type { WebhookConfig } from './config';
import type { WebhookMetrics } from './metrics';
import { type ClaimedDelivery, claimDue, markAttemptFailed, markDelivered, noteEndpointFailure, recordAttempt, releaseClaims } from './queries';
import { retryDelay } from './domain/schedule';
import type { Sender } from './sender';

/**
 * The delivery workers of one process: claim due deliveries (SKIP LOCKED, leased past the send's
 * timeout), send each, record the attempt and the outcome. At most `concurrency` sends in flight,
 * at most `endpointConcurrency` per endpoint, so a slow endpoint holds only its own slots.
 *
 * One claim takes up to twice an endpoint's slots: the deliveries beyond its free slots wait here,
 * in claim order, and go out as soon as a send of that endpoint is done, with no claim in between
 * (one claim round trip per several sends, not one per send). A delivery waits at most one
 * round of its endpoint's sends; one whose lease is half gone is not sent but left to be claimed
 * again, so that no other replica can claim it while it is in flight.
 */
export class Dispatcher {
  private readonly inflight = new Map<string, number>();
  private readonly queued = new Map<string, { d: ClaimedDelivery; claimedAt: number }[]>();
  private queuedCount = 0;
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

  private get leaseMs(): number {
    return this.o.config.timeoutMs + (this.o.config.leaseMarginMs ?? 30_000);
  }

  /** Claimed here: in flight or waiting for a slot. */
  private held(endpointId: string): number {
    return (this.inflight.get(endpointId) ?? 0) + (this.queued.get(endpointId)?.length ?? 0);
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
        const { concurrency, endpointConcurrency } = this.o.config;
        // Claimed and not yet written down (the sends and the waiting ones): at most twice the concurrency.
        const free = 2 * concurrency - this.sends.size - this.queuedCount;
        if (free <= 0) break;
        const perEndpoint = 2 * endpointConcurrency;
        const saturated = [...new Set([...this.inflight.keys(), ...this.queued.keys()])].filter((id) => this.held(id) >= perEndpoint);
        const claimedAt = Date.now();
        const claimed = await this.o.orm.em
          .fork()
          .transactional((em) => claimDue(em, { limit: free, leaseMs: this.leaseMs, saturated, slots: (id) => perEndpoint - this.held(id) }));
        for (const d of claimed) {
          const q = this.queued.get(d.endpoint_id) ?? [];
          q.push({ d, claimedAt });
          this.queued.set(d.endpoint_id, q);
          this.queuedCount++;
        }
        this.pump();
        if (claimed.length === free) this.again = true;
      } while (this.again && !this.stopped);
    } catch (err) {
      this.o.log.warn({ err }, 'claiming deliveries failed');
    } finally {
      this.ticking = false;
      this.schedule(this.o.config.pollIntervalMs);
    }
  }

  /** Sends what waits, as far as the slots allow; drops (to be claimed again) what waited too long. */
  private pump(): void {
    const { concurrency, endpointConcurrency } = this.o.config;
    const stale = Date.now() - (this.o.config.leaseMarginMs ?? 30_000) / 2;
    const late: string[] = [];
    for (const [endpointId, q] of this.queued) {
      while (q.length > 0 && this.total < concurrency && (this.inflight.get(endpointId) ?? 0) < endpointConcurrency) {
        const { d, claimedAt } = q.shift()!;
        this.queuedCount--;
        // Its lease could run out before a send ends: not sent here, given back to be claimed again.
        if (claimedAt < stale) late.push(d.id);
        else this.launch(d);
      }
      if (q.length === 0) this.queued.delete(endpointId);
    }
    if (late.length > 0) {
      void this.o.orm.em
        .fork()
        .transactional((em) => releaseClaims(em, late))
        .catch((err: unknown) => this.o.log.warn({ err, deliveries: late.length }, 'giving back late deliveries failed; their leases will'));
    }
  }

  /**
   * Sends one claimed delivery and writes its attempt down. Its slot (per endpoint and in all) is
   * held until then, so a crash re-sends at most the slots' worth of deliveries per endpoint.
   */
  private launch(d: ClaimedDelivery): void {
    this.total++;
    this.inflight.set(d.endpoint_id, (this.inflight.get(d.endpoint_id) ?? 0) + 1);
    const release = () => {
      this.total--;
      const n = (this.inflight.get(d.endpoint_id) ?? 1) - 1;
      if (n <= 0) this.inflight.delete(d.endpoint_id);
      else this.inflight.set(d.endpoint_id, n);
      this.pump();
      // Claim more once this endpoint has less waiting than a round of its slots.
      if ((this.queued.get(d.endpoint_id)?.length ?? 0) < this.o.config.endpointConcurrency) this.wake();
    };
    const p = this.deliver(d)
      .catch((err) => this.o.log.error({ err, delivery_id: d.id }, 'delivery bookkeeping failed; the lease will retry it'))
      .finally(() => {
        release();
        this.sends.delete(p);
      });
    this.sends.add(p);
  }

  private async deliver(d: ClaimedDelivery): Promise<void> {
    const { config, sender, metrics, log } = this.o;
    const secret = decryptSecret(config.secretKey, d.endpoint_id, d.secret_encrypted);
    const result = await sender.send({ url: d.url, environment: d.environment, body: d.body, deliveryId: d.id, secret });
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const retryIn = ok ? null : retryDelay(config.retrySchedule, d.attempt_count);
    const outcome = ok ? 'success' : retryIn === null ? 'failed' : 'retry';
    let disabled = false;
    await this.o.orm.em.fork().transactional(async (em) => {
      await recordAttempt(em, d.id, result);
      if (ok) await markDelivered(em, d.id, d.endpoint_id);
      else {
        await markAttemptFailed(em, d.id, retryIn);
        disabled = await noteEndpointFailure(em, d.endpoint_id, config.disableAfterMs);
      }
    });
    metrics.attempts.inc({ outcome });
    metrics.attemptDuration.observe({ outcome }, result.durationMs / 1000);
    if (ok) metrics.deliveries.inc({ outcome: 'delivered' });
    else if (retryIn === null) metrics.deliveries.inc({ outcome: 'failed' });
    log.debug({ delivery_id: d.id, endpoint_id: d.endpoint_id, attempt: d.attempt_count, status_code: result.statusCode, error: result.error, outcome }, 'webhook attempt');
    if (disabled) log.warn({ endpoint_id: d.endpoint_id }, 'endpoint disabled: every delivery failed for too long');
  }

  /** Stops claiming and waits for the sends in flight (their leases cover a crash instead). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // What waits for a slot goes back at once (due now, its claim undone) rather than at its lease's end.
    const waiting = [...this.queued.values()].flat().map((w) => w.d.id);
    this.queued.clear();
    this.queuedCount = 0;
    if (waiting.length > 0) {
      await this.o.orm.em
        .fork()
        .transactional((em) => releaseClaims(em, waiting))
        .catch((err: unknown) => this.o.log.warn({ err, deliveries: waiting.length }, 'giving back waiting deliveries failed; their leases will'));
    }
    await Promise.allSettled([...this.sends]);
  }
}
