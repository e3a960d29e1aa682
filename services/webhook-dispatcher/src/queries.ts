import type { Environment, WebhookAttemptDto, WebhookDeliveryDto, WebhookEndpointDto, WebhookEventType } from '@acct/contracts';
import { type EntityManager, type ListQuery, keysetSql } from '@acct/kit';

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
  created_at: Date;
}

export function endpointDto(r: EndpointRow): WebhookEndpointDto {
  return {
    id: r.id,
    url: r.url,
    event_types: r.event_types,
    description: r.description,
    status: r.status,
    disabled_reason: r.disabled_reason,
    created_at: new Date(r.created_at).toISOString(),
  };
}

export async function insertEndpoint(em: EntityManager, r: EndpointRow): Promise<void> {
  await em.execute(
    `INSERT INTO webhook_endpoints (id, organization_id, connected_app_id, environment, url, description, event_types, status, disabled_reason, secret_encrypted, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?::text[], ?, ?, ?, ?)`,
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

/** Fails the endpoint's pending deliveries (it was deleted or disabled). */
export async function failPendingDeliveries(em: EntityManager, endpointId: string): Promise<void> {
  await em.execute(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE endpoint_id = ? AND status = 'pending'`, [endpointId]);
}

/** Enabled endpoints of the app and environment subscribed to the type. */
export async function subscribers(em: EntityManager, s: EndpointScope, type: string): Promise<{ id: string }[]> {
  return em.execute(`SELECT id FROM webhook_endpoints WHERE ${SCOPE} AND status = 'enabled' AND ? = ANY(event_types)`, [...scopeArgs(s), type]);
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

/** Leases the deliveries for `leaseMs` (their next attempt moves past it) and counts the attempt. */
export async function leaseDeliveries(em: EntityManager, ids: string[], leaseMs: number): Promise<ClaimedDelivery[]> {
  return em.execute<ClaimedDelivery[]>(
    `UPDATE webhook_deliveries d SET attempt_count = d.attempt_count + 1, next_attempt_at = now() + (? * interval '1 millisecond')
       FROM webhook_endpoints e
      WHERE d.id = ANY(?::uuid[]) AND e.id = d.endpoint_id
      RETURNING d.id, d.endpoint_id, d.body, d.attempt_count, e.url, e.environment, e.secret_encrypted`,
    [leaseMs, `{${ids.join(',')}}`],
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

export async function markDelivered(em: EntityManager, deliveryId: string): Promise<void> {
  await em.execute(`UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), next_attempt_at = NULL WHERE id = ? AND status = 'pending'`, [deliveryId]);
}

/** The endpoint answered: it is no longer failing. */
export async function clearEndpointFailing(em: EntityManager, endpointId: string): Promise<void> {
  await em.execute(`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL`, [endpointId]);
}

/** A failed last attempt: the delivery fails. */
export async function markFailed(em: EntityManager, deliveryId: string): Promise<void> {
  await em.execute(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = ? AND status = 'pending'`, [deliveryId]);
}

/** A failed attempt: the next one after `retryInMs`. */
export async function scheduleRetry(em: EntityManager, deliveryId: string, retryInMs: number): Promise<void> {
  await em.execute(`UPDATE webhook_deliveries SET next_attempt_at = now() + (? * interval '1 millisecond') WHERE id = ? AND status = 'pending'`, [retryInMs, deliveryId]);
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

export async function backlog(em: EntityManager): Promise<{ pending: number; oldestAgeSeconds: number }> {
  const rows = await em.execute<{ pending: string; age: number | null }[]>(
    `SELECT count(*) AS pending, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS age FROM webhook_deliveries WHERE status = 'pending'`,
  );
  return { pending: Number(rows[0]?.pending ?? 0), oldestAgeSeconds: Number(rows[0]?.age ?? 0) };
}
