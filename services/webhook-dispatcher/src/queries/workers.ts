import type { Environment } from '@acct/contracts';
import type { EntityManager } from '@acct/kit';

/** What the delivery workers run: the claim (SKIP LOCKED) and lease, each attempt's outcome, the endpoint's failing state and the backlog. */

export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  body: string;
  attempt_count: number;
  url: string;
  environment: Environment;
  secret_encrypted: string;
  /** The secret before the last rotation while it still signs, else null. */
  previous_secret_encrypted: string | null;
  /** A manual attempt (POST …/retry): it does not use up the retry schedule. */
  manual_attempt: boolean;
  /** After a failed manual attempt, the status the delivery returns to (null: it was pending). */
  resume_status: 'delivered' | 'failed' | null;
  /** Manual attempts so far, this one included. */
  manual_attempts: number;
}

/**
 * Locks due deliveries with SKIP LOCKED (no two workers take the same one), oldest due first, except
 * those of the saturated endpoints.
 */
export async function lockDue(em: EntityManager, saturated: string[], limit: number): Promise<{ id: string; endpoint_id: string }[]> {
  return em.execute<{ id: string; endpoint_id: string }[]>(
    `SELECT d.id, d.endpoint_id FROM webhook_deliveries d
      WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND NOT (d.endpoint_id = ANY(?::uuid[]))
      ORDER BY d.next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED`,
    [`{${saturated.join(',')}}`, limit],
  );
}

/** Leases the deliveries for `leaseMs` (their next attempt moves past it, leased_until says so) and counts the attempt. */
export async function leaseDeliveries(em: EntityManager, ids: string[], leaseMs: number): Promise<ClaimedDelivery[]> {
  return em.execute<ClaimedDelivery[]>(
    `UPDATE webhook_deliveries d SET attempt_count = d.attempt_count + 1, manual_attempts = d.manual_attempts + d.manual_attempt::int,
            next_attempt_at = now() + (? * interval '1 millisecond'), leased_until = now() + (? * interval '1 millisecond')
       FROM webhook_endpoints e
      WHERE d.id = ANY(?::uuid[]) AND e.id = d.endpoint_id
      RETURNING d.id, d.endpoint_id, d.body, d.attempt_count, d.manual_attempt, d.resume_status, d.manual_attempts, e.url, e.environment, e.secret_encrypted,
                CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_encrypted END AS previous_secret_encrypted`,
    [leaseMs, leaseMs, `{${ids.join(',')}}`],
  );
}

export interface AttemptResult {
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
}

export async function recordAttempt(em: EntityManager, deliveryId: string, a: AttemptResult): Promise<void> {
  await em.execute(`INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_body) VALUES (?, ?, ?, ?, ?, ?)`, [
    deliveryId,
    a.attemptedAt,
    a.statusCode,
    a.durationMs,
    a.error,
    a.responseBody,
  ]);
}

/** What every outcome clears: the lease and the manual attempt it was. */
const ATTEMPT_DONE = `leased_until = NULL, manual_attempt = false, resume_status = NULL`;

export async function markDelivered(em: EntityManager, deliveryId: string): Promise<void> {
  await em.execute(`UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), next_attempt_at = NULL, ${ATTEMPT_DONE} WHERE id = ? AND status = 'pending'`, [
    deliveryId,
  ]);
}

/** The endpoint answered: it is no longer failing. */
export async function clearEndpointFailing(em: EntityManager, endpointId: string): Promise<void> {
  await em.execute(`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL`, [endpointId]);
}

/** A failed last attempt: the delivery fails. */
export async function markFailed(em: EntityManager, deliveryId: string): Promise<void> {
  await em.execute(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, ${ATTEMPT_DONE} WHERE id = ? AND status = 'pending'`, [deliveryId]);
}

/** A failed manual attempt of a failed or delivered delivery: it returns to that status. */
export async function markResumed(em: EntityManager, deliveryId: string): Promise<void> {
  await em.execute(
    `UPDATE webhook_deliveries SET status = resume_status, next_attempt_at = NULL, ${ATTEMPT_DONE} WHERE id = ? AND status = 'pending' AND resume_status IS NOT NULL`,
    [deliveryId],
  );
}

/** A failed attempt: the next one after `retryInMs`. */
export async function scheduleRetry(em: EntityManager, deliveryId: string, retryInMs: number): Promise<void> {
  await em.execute(`UPDATE webhook_deliveries SET next_attempt_at = now() + (? * interval '1 millisecond'), ${ATTEMPT_DONE} WHERE id = ? AND status = 'pending'`, [
    retryInMs,
    deliveryId,
  ]);
}

/** Notes a failure on the endpoint: since when it fails, and whether it is enabled and has failed for `disableAfterMs`. */
export async function noteEndpointFailing(em: EntityManager, endpointId: string, disableAfterMs: number): Promise<{ failing_since: Date; disable: boolean } | undefined> {
  const rows = await em.execute<{ failing_since: Date; disable: boolean }[]>(
    `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, now()) WHERE id = ?
     RETURNING failing_since, (status = 'enabled' AND failing_since <= now() - (? * interval '1 millisecond')) AS disable`,
    [endpointId, disableAfterMs],
  );
  return rows[0];
}

export async function disableEndpoint(em: EntityManager, endpointId: string, reason: string): Promise<void> {
  await em.execute(`UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ? WHERE id = ?`, [reason, endpointId]);
}

export async function backlog(em: EntityManager): Promise<{ pending: number; oldestAgeSeconds: number; due: number; oldestDueSeconds: number }> {
  const rows = await em.execute<{ pending: string; age: number | null; due: string; due_age: number | null }[]>(
    `SELECT count(*) AS pending, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS age,
            count(*) FILTER (WHERE next_attempt_at <= now()) AS due,
            EXTRACT(EPOCH FROM now() - min(next_attempt_at) FILTER (WHERE next_attempt_at <= now()))::float8 AS due_age
       FROM webhook_deliveries WHERE status = 'pending'`,
  );
  const r = rows[0];
  return { pending: Number(r?.pending ?? 0), oldestAgeSeconds: Number(r?.age ?? 0), due: Number(r?.due ?? 0), oldestDueSeconds: Number(r?.due_age ?? 0) };
}
