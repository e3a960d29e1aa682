import type { NatsConnection } from 'nats';
import { AppError, eventsStreamName } from '@acct/contracts';
import { DEFAULT_FRESHNESS_WAIT_MS } from '../config';

/**
 * Read-your-writes: before a read, note the stream's last sequence and wait (bounded) until the
 * durable consumer has acknowledged everything up to it. Acks follow commits, so the projection then
 * holds every event a 2xx reply published. Replica-independent: it asks the server, not this process.
 * While it waits it calls `hurry` (the consumer's hurry()) with that sequence at every poll, so
 * this replica applies the events up to it without lingering for more (and lets later ones linger).
 */
export class Freshness {
  /** True while a rebuild empties and replays the projection: reads answer 503. */
  rebuilding = false;

  private readonly waitMs: number;
  private readonly pollMs: number;
  private readonly hurry: (upTo: number) => void;

  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
    private readonly consumer: string,
    opts: { waitMs?: number; pollMs?: number; hurry?: (upTo: number) => void } = {},
  ) {
    this.waitMs = opts.waitMs ?? DEFAULT_FRESHNESS_WAIT_MS;
    this.pollMs = opts.pollMs ?? 20;
    this.hurry = opts.hurry ?? (() => undefined);
  }

  /** The stream's last sequence and the consumer's ack floor (0 when missing). */
  async positions(): Promise<{ lastSeq: number; ackFloor: number }> {
    const jsm = await this.nc.jetstreamManager();
    const stream = eventsStreamName(this.prefix);
    const lastSeq = (await jsm.streams.info(stream)).state.last_seq;
    const ackFloor = await jsm.consumers.info(stream, this.consumer).then(
      (i) => i.ack_floor.stream_seq,
      () => 0,
    );
    return { lastSeq, ackFloor };
  }

  async awaitCaughtUp(): Promise<void> {
    const unavailable = () => new AppError('service_unavailable', 'The reports are catching up with the latest postings. Retry shortly.');
    if (this.rebuilding) throw unavailable();
    const deadline = Date.now() + this.waitMs;
    let target: number;
    try {
      const p = await this.positions();
      if (p.ackFloor >= p.lastSeq) return;
      target = p.lastSeq;
    } catch {
      throw unavailable();
    }
    while (Date.now() < deadline) {
      this.hurry(target);
      await new Promise((r) => setTimeout(r, this.pollMs));
      const p = await this.positions().catch(() => null);
      if (p && p.ackFloor >= target && !this.rebuilding) return;
    }
    throw unavailable();
  }
}
