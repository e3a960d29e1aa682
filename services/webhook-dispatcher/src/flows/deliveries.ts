import type { EntityManager } from '@acct/kit';
import { disabledReason, pickClaims } from '../domain/claims';
import { failPendingDeliveries } from '../queries/endpoints';
import {
  type AttemptResult,
  type ClaimedDelivery,
  clearEndpointFailing,
  disableEndpoint,
  leaseDeliveries,
  lockDue,
  markDelivered,
  markFailed,
  markResumed,
  noteEndpointFailing,
  recordAttempt,
  scheduleRetry,
} from '../queries/workers';

/**
 * Claims due deliveries in one transaction: rows locked with SKIP LOCKED (no two
 * workers take the same one), then leased by moving next_attempt_at past the send's timeout, so a
 * worker that dies mid-send leaves a delivery that comes due again (a retry, never a loss).
 * Endpoints already at their concurrency limit are skipped, and at most `slots(id)` rows are taken
 * per endpoint.
 */
export async function claimDue(em: EntityManager, o: { limit: number; leaseMs: number; saturated: string[]; slots: (endpointId: string) => number }): Promise<ClaimedDelivery[]> {
  return em.transactional(async (tx) => {
    const taken = pickClaims(await lockDue(tx, o.saturated, o.limit * 4), o.limit, o.slots);
    return taken.length === 0 ? [] : leaseDeliveries(tx, taken, o.leaseMs);
  });
}

/**
 * Records one attempt and its outcome in one transaction: delivered (the endpoint no longer
 * failing), or a retry after `retryInMs`, or failed (null), or, after a failed manual attempt of a
 * failed or delivered delivery (`resume`), that status again. A failure is noted on the endpoint; once
 * every delivery has failed for `disableAfterMs`, it is disabled (saying why) and its pending
 * deliveries fail. Returns true when the endpoint was disabled now.
 */
export async function recordOutcome(
  em: EntityManager,
  d: Pick<ClaimedDelivery, 'id' | 'endpoint_id'>,
  result: AttemptResult,
  o: { ok: boolean; retryInMs: number | null; disableAfterMs: number; resume?: boolean },
): Promise<boolean> {
  return em.transactional(async (tx) => {
    await recordAttempt(tx, d.id, result);
    if (o.ok) {
      await markDelivered(tx, d.id);
      await clearEndpointFailing(tx, d.endpoint_id);
      return false;
    }
    if (o.resume) await markResumed(tx, d.id);
    else if (o.retryInMs === null) await markFailed(tx, d.id);
    else await scheduleRetry(tx, d.id, o.retryInMs);
    const failing = await noteEndpointFailing(tx, d.endpoint_id, o.disableAfterMs);
    if (!failing?.disable) return false;
    await disableEndpoint(tx, d.endpoint_id, disabledReason(failing.failing_since, o.disableAfterMs));
    await failPendingDeliveries(tx, d.endpoint_id);
    return true;
  });
}
