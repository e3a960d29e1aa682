import type { Environment, Metadata, WebhookAttemptDto, WebhookDeliveryDto, WebhookEndpointDto, WebhookEventType } from '@acct/contracts';
import { type EntityManager, type ListQuery, type Orm, keysetSql, statement, withQuery } from '@acct/kit';

/**
 * Every SQL statement of the service (raw SQL: the tables are small and the claim needs SKIP LOCKED),
 * one statement (or one read with its attempts) per function; flows/ compose them in transactions.
 */

export interface EndpointScope {
  organizationId: string;
  connectedAppId: string;
  environment: Environment;
}

export interface EndpointRow {
  id: string;
  organization_id: string;
  connected_app_id: string;
  environment: Environment;
  url: string;
  description: string | null;
  event_types: WebhookEventType[];
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  secret_encrypted: string;
  /** The secret before the last rotation, while it still signs beside the current one (see endpointDto). */
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  metadata: Metadata;
  created_at: Date;
}

/** Whether the secret before the last rotation still signs. */
const previousSecretLive = (r: Pick<EndpointRow, 'previous_secret_expires_at'>, now = Date.now()) =>
  r.previous_secret_expires_at !== null && new Date(r.previous_secret_expires_at).getTime() > now;

export function endpointDto(r: EndpointRow): WebhookEndpointDto {
  return {
    id: r.id,
    url: r.url,
    event_types: r.event_types,
    description: r.description,
    status: r.status,
    disabled_reason: r.disabled_reason,
    previous_secret_expires_at: previousSecretLive(r) ? new Date(r.previous_secret_expires_at!).toISOString() : null,
    metadata: r.metadata ?? {},
    created_at: new Date(r.created_at).toISOString(),
  };
}

export async function insertEndpoint(em: EntityManager, r: EndpointRow): Promise<void> {
  await em.execute(
    `INSERT INTO webhook_endpoints (id, organization_id, connected_app_id, environment, url, description, event_types, status, disabled_reason, secret_encrypted, metadata, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?::text[], ?, ?, ?, ?::jsonb, ?)`,
    [
      r.id,
      r.organization_id,
      r.connected_app_id,
      r.environment,
      r.url,
      r.description,
      `{${r.event_types.join(',')}}`,
      r.status,
      r.disabled_reason,
      r.secret_encrypted,
      JSON.stringify(r.metadata),
      r.created_at,
    ],
  );
}

const SCOPE = `organization_id = ? AND connected_app_id = ? AND environment = ? AND deleted_at IS NULL`;
const scopeArgs = (s: EndpointScope) => [s.organizationId, s.connectedAppId, s.environment];

const inEndpointScope = (r: EndpointRow, s: EndpointScope) => r.organization_id === s.organizationId && r.connected_app_id === s.connectedAppId && r.environment === s.environment;

/**
 * An endpoint of the scope by id: by primary key, the scope checked on the row (with the scope in
 * the WHERE, Postgres may walk the list index over every endpoint of the organization instead).
 */
export async function findEndpoint(em: EntityManager, s: EndpointScope, id: string): Promise<EndpointRow | null> {
  const row = await findEndpointById(em, id);
  return row && inEndpointScope(row, s) ? row : null;
}

/** A page of the scope's endpoints, newest first (keyset or offset: kit keysetSql), on the webhook_endpoints_list index. */
export async function listEndpoints(em: EntityManager, s: EndpointScope, q: ListQuery): Promise<EndpointRow[]> {
  const page = keysetSql(q, { time: 'created_at', cursorTime: `SELECT c.created_at FROM webhook_endpoints c WHERE c.id = ?` });
  return em.execute<EndpointRow[]>(`SELECT * FROM webhook_endpoints WHERE ${[SCOPE, ...page.where].join(' AND ')} ORDER BY ${page.order} LIMIT ? OFFSET ?`, [
    ...scopeArgs(s),
    ...page.args,
    page.limit,
    page.offset,
  ]);
}

/** Hides an endpoint (deleted_at); false when it was already gone. */
export async function hideEndpoint(em: EntityManager, id: string): Promise<boolean> {
  const rows = await em.execute(`UPDATE webhook_endpoints SET deleted_at = now() WHERE id = ? AND deleted_at IS NULL RETURNING id`, [id]);
  return rows.length > 0;
}

/**
 * Fails the endpoint's pending deliveries (it was deleted or disabled); one waiting only for a manual
 * attempt goes back to what it was (a delivered one stays delivered).
 */
export async function failPendingDeliveries(em: EntityManager, endpointId: string): Promise<void> {
  await em.execute(
    `UPDATE webhook_deliveries SET status = COALESCE(resume_status, 'failed'), next_attempt_at = NULL, resume_status = NULL, manual_attempt = false, leased_until = NULL
      WHERE endpoint_id = ? AND status = 'pending'`,
    [endpointId],
  );
}

/** An endpoint of the scope, its row locked FOR UPDATE (PATCH, rotation) or FOR SHARE (a manual retry, so it cannot be disabled meanwhile). */
export async function lockEndpoint(em: EntityManager, s: EndpointScope, id: string, mode: 'UPDATE' | 'SHARE'): Promise<EndpointRow | null> {
  const rows = await em.execute<EndpointRow[]>(`SELECT * FROM webhook_endpoints WHERE id = ? AND deleted_at IS NULL FOR ${mode === 'UPDATE' ? 'UPDATE' : 'SHARE'}`, [id]);
  const row = rows[0];
  return row && inEndpointScope(row, s) ? row : null;
}

/** The fields PATCH sets (those of the row after the update). */
export async function updateEndpointFields(
  em: EntityManager,
  id: string,
  f: Pick<EndpointRow, 'url' | 'event_types' | 'description' | 'metadata' | 'status' | 'disabled_reason'> & { resetFailing: boolean },
): Promise<EndpointRow> {
  const rows = await em.execute<EndpointRow[]>(
    `UPDATE webhook_endpoints SET url = ?, event_types = ?::text[], description = ?, metadata = ?::jsonb, status = ?, disabled_reason = ?,
            failing_since = CASE WHEN ? THEN NULL ELSE failing_since END
      WHERE id = ? RETURNING *`,
    [f.url, `{${f.event_types.join(',')}}`, f.description, JSON.stringify(f.metadata), f.status, f.disabled_reason, f.resetFailing, id],
  );
  return rows[0]!;
}

/**
 * A new current secret; the one it replaces signs beside it for `overlapHours` (0: not at all). A
 * secret kept from an earlier rotation is dropped: at most two secrets sign a delivery.
 */
export async function rotateEndpointSecret(em: EntityManager, id: string, secretEncrypted: string, overlapHours: number): Promise<EndpointRow> {
  const rows = await em.execute<EndpointRow[]>(
    `UPDATE webhook_endpoints SET
            previous_secret_encrypted = CASE WHEN ? > 0 THEN secret_encrypted END,
            previous_secret_expires_at = CASE WHEN ? > 0 THEN now() + (? * interval '1 hour') END,
            secret_encrypted = ?
      WHERE id = ? RETURNING *`,
    [overlapHours, overlapHours, overlapHours, secretEncrypted, id],
  );
  return rows[0]!;
}

/** Enabled endpoints of the app and environment subscribed to the type. */
export async function subscribers(em: EntityManager, s: EndpointScope, type: string): Promise<{ id: string }[]> {
  return em.execute(`SELECT id FROM webhook_endpoints WHERE ${SCOPE} AND status = 'enabled' AND ? = ANY(event_types)`, [...scopeArgs(s), type]);
}

const SUBSCRIPTIONS_VERSION = statement('webhook_subscriptions_version', `SELECT version FROM webhook_subscriptions_version`);

/**
 * The version of the endpoints' subscriptions (bumped by a trigger with every change to them): a
 * named statement on pg directly, the outbound consumer reads it once per batch (a measured hot
 * path, issue #26).
 */
export async function subscriptionsVersion(orm: Orm): Promise<string> {
  const rows = await withQuery(orm, (q) => q<{ version: string }>(SUBSCRIPTIONS_VERSION, []));
  return String(rows[0]!.version);
}

export interface SubscriptionRow {
  organization_id: string;
  connected_app_id: string;
  environment: Environment;
  event_types: WebhookEventType[];
}

/**
 * Every enabled endpoint's scope and event types, with the version they are at: one statement, so
 * one snapshot (a change is either in both or in neither).
 */
export async function subscriptionsAt(em: EntityManager): Promise<{ version: string; rows: SubscriptionRow[] }> {
  const rows = await em.execute<(SubscriptionRow & { version: string })[]>(
    `SELECT v.version, e.organization_id, e.connected_app_id, e.environment, e.event_types
       FROM webhook_subscriptions_version v
       LEFT JOIN webhook_endpoints e ON e.status = 'enabled' AND e.deleted_at IS NULL`,
  );
  return { version: String(rows[0]!.version), rows: rows.filter((r) => r.organization_id !== null) };
}

export interface NewDelivery {
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

/** An endpoint by id alone (the operator's CLI), deleted ones excluded. */
export async function findEndpointById(em: EntityManager, id: string): Promise<EndpointRow | null> {
  const rows = await em.execute<EndpointRow[]>(`SELECT * FROM webhook_endpoints WHERE id = ? AND deleted_at IS NULL`, [id]);
  return rows[0] ?? null;
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

// ---------- the workers ----------

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
