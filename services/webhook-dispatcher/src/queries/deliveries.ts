import type { WebhookAttemptDto, WebhookDeliveryDto } from '@acct/contracts';
import { type EntityManager, type ListQuery, keysetSql } from '@acct/kit';

/** The webhook_deliveries and webhook_attempts tables as the API reads them, and the writes of a new delivery and a manual attempt. */

interface NewDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  body: string;
  createdAt: Date;
}

/** One delivery per event and endpoint: a repeat of the same pair is ignored. */
export async function insertDelivery(em: EntityManager, d: NewDelivery): Promise<boolean> {
  const rows = await em.execute(
    `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, body, status, attempt_count, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT ON CONSTRAINT webhook_deliveries_once DO NOTHING RETURNING id`,
    [d.id, d.endpointId, d.eventId, d.eventType, d.body, d.createdAt, d.createdAt],
  );
  return rows.length > 0;
}

/**
 * Queues one manual attempt of a delivery of the endpoint, due now: a failed or delivered one becomes
 * pending for that attempt (and returns to its status if it fails), a pending one has its next
 * attempt moved to now. Nothing changes when an attempt is already queued, due or in flight (leased),
 * so a repeated request never starts a second, concurrent send. The row lock the claim takes (FOR
 * UPDATE SKIP LOCKED) orders this against a claim: this waits for it and then sees the lease.
 * Returns whether the delivery is the endpoint's.
 */
export async function queueManualAttempt(em: EntityManager, endpointId: string, deliveryId: string): Promise<boolean> {
  const rows = await em.execute<{ id: string; queued: boolean }[]>(
    `WITH target AS (SELECT id FROM webhook_deliveries WHERE id = ? AND endpoint_id = ?),
          queued AS (
            UPDATE webhook_deliveries d SET
                   resume_status = CASE WHEN d.status = 'pending' THEN d.resume_status ELSE d.status END,
                   status = 'pending', next_attempt_at = now(), manual_attempt = true
              FROM target t
             WHERE d.id = t.id
               AND NOT (d.status = 'pending' AND (d.manual_attempt OR d.next_attempt_at <= now() OR COALESCE(d.leased_until > now(), false)))
            RETURNING d.id)
     SELECT t.id, EXISTS (SELECT 1 FROM queued) AS queued FROM target t`,
    [deliveryId, endpointId],
  );
  return rows.length > 0;
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempt_count: number;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
}
interface AttemptRow {
  delivery_id: string;
  attempted_at: Date;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
}
const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** A page of the endpoint's deliveries, newest first (keyset or offset: kit keysetSql), on the webhook_deliveries_list index. */
export async function listDeliveries(em: EntityManager, endpointId: string, q: ListQuery): Promise<WebhookDeliveryDto[]> {
  const page = keysetSql(q, { time: 'created_at', cursorTime: `SELECT c.created_at FROM webhook_deliveries c WHERE c.id = ?` });
  const rows = await em.execute<DeliveryRow[]>(
    `SELECT id, endpoint_id, event_id, event_type, status, attempt_count, next_attempt_at, delivered_at, created_at
       FROM webhook_deliveries WHERE ${['endpoint_id = ?', ...page.where].join(' AND ')} ORDER BY ${page.order} LIMIT ? OFFSET ?`,
    [endpointId, ...page.args, page.limit, page.offset],
  );
  return withAttempts(em, rows);
}

/** Whether the delivery is one of the endpoint's (a cursor of its deliveries list). */
export async function isDeliveryOf(em: EntityManager, endpointId: string, id: string): Promise<boolean> {
  const rows = await em.execute(`SELECT 1 FROM webhook_deliveries WHERE id = ? AND endpoint_id = ?`, [id, endpointId]);
  return rows.length > 0;
}

export async function getDelivery(em: EntityManager, id: string): Promise<WebhookDeliveryDto | null> {
  const rows = await em.execute<DeliveryRow[]>(
    `SELECT id, endpoint_id, event_id, event_type, status, attempt_count, next_attempt_at, delivered_at, created_at FROM webhook_deliveries WHERE id = ?`,
    [id],
  );
  return (await withAttempts(em, rows))[0] ?? null;
}

async function withAttempts(em: EntityManager, rows: DeliveryRow[]): Promise<WebhookDeliveryDto[]> {
  const attempts = rows.length
    ? await em.execute<AttemptRow[]>(`SELECT * FROM webhook_attempts WHERE delivery_id = ANY(?::uuid[]) ORDER BY attempted_at, id`, [`{${rows.map((r) => r.id).join(',')}}`])
    : [];
  const by = new Map<string, WebhookAttemptDto[]>();
  for (const a of attempts) {
    const list = by.get(a.delivery_id) ?? [];
    list.push({ attempted_at: iso(a.attempted_at)!, status_code: a.status_code, duration_ms: a.duration_ms, error: a.error, response_body: a.response_body });
    by.set(a.delivery_id, list);
  }
  return rows.map((r) => ({
    id: r.id,
    endpoint_id: r.endpoint_id,
    event_id: r.event_id,
    event_type: r.event_type,
    status: r.status,
    attempt_count: r.attempt_count,
    next_attempt_at: iso(r.next_attempt_at),
    delivered_at: iso(r.delivered_at),
    created_at: iso(r.created_at)!,
    attempts: by.get(r.id) ?? [],
  }));
}
