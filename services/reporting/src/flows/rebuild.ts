import { CONSUMERS, type RebuildProgress, eventsStreamName } from '@acct/contracts';
import { type EventConsumer, type ServiceWiring, retryOnConflict } from '@acct/kit';
import { appliedCount, emptyProjection } from '../queries/projection';
import type { Freshness } from './freshness';

/** The consumer it stops and restarts, and the freshness it marks as rebuilding (the service's state). */
export interface RebuildTarget {
  consumer: EventConsumer;
  fresh: Freshness;
}

/** The progress of a replay: `applied` of `total` stream positions after elapsedMs (pure). */
export function rebuildProgress(applied: number, total: number, elapsedMs: number, timeoutMs: number): RebuildProgress {
  const rate = elapsedMs > 0 ? (applied * 1000) / elapsedMs : 0;
  const left = Math.max(0, total - applied);
  return {
    applied,
    total,
    rate_per_s: Math.round(rate * 10) / 10,
    eta_s: left === 0 ? 0 : rate > 0 ? Math.ceil(left / rate) : null,
    elapsed_ms: Math.round(elapsedMs),
    timeout_ms: timeoutMs,
  };
}

/** How often a rebuild reports its progress (onProgress). */
export const PROGRESS_EVERY_MS = 1000;

/**
 * Drops the projection and replays the events stream from its first message (the stream keeps
 * every event: max_age 0). Reads answer 503 meanwhile; resolves once the consumer caught up.
 */
export async function rebuild(
  w: Pick<ServiceWiring, 'nc' | 'prefix' | 'orm' | 'log'>,
  state: RebuildTarget,
  timeoutMs: number,
  onProgress?: (p: RebuildProgress) => void,
): Promise<{ applied: number; last_seq: number }> {
  state.fresh.rebuilding = true;
  const started = Date.now();
  let reported = 0;
  try {
    await state.consumer.stop();
    const jsm = await w.nc.jetstreamManager();
    // Other replicas keep applying until the durable consumer goes; the consumer is deleted while
    // this transaction holds consumed_events, so whatever they claim after it is claimed afresh and
    // replayed from the first message (their consume loops re-attach once it exists again).
    await retryOnConflict(() =>
      w.orm.em.fork().transactional(async (em) => {
        await emptyProjection(em);
        await jsm.consumers.delete(eventsStreamName(w.prefix), CONSUMERS.reportingPostings).catch(() => undefined);
      }),
    );
    await state.consumer.start();
    const deadline = started + timeoutMs;
    for (;;) {
      const p = await state.fresh.positions();
      if (onProgress && (Date.now() - reported >= PROGRESS_EVERY_MS || p.ackFloor >= p.lastSeq)) {
        reported = Date.now();
        const progress = rebuildProgress(Math.min(p.ackFloor, p.lastSeq), p.lastSeq, reported - started, timeoutMs);
        onProgress(progress);
        w.log.info(progress, 'reporting rebuild progress');
      }
      if (p.ackFloor >= p.lastSeq) {
        const applied = await appliedCount(w.orm);
        w.log.info({ applied, last_seq: p.lastSeq }, 'reporting projection rebuilt');
        return { applied, last_seq: p.lastSeq };
      }
      if (Date.now() > deadline) throw new Error(`rebuild did not catch up within ${timeoutMs} ms (at ${p.ackFloor} of ${p.lastSeq})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    state.fresh.rebuilding = false;
  }
}
