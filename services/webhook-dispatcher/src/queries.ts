import type { Environment, WebhookAttemptDto, WebhookDeliveryDto, WebhookEndpointDto, WebhookEventType } from '@acct/contracts';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@acct/kit';
import { deliveryBody } from './domain/body';

/** Every SQL statement of the service (raw SQL: the tables are small and the claim needs SKIP LOCKED). */

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

export async function listEndpoints(em: EntityManager, s: EndpointScope, limit: number, offset: number): Promise<EndpointRow[]> {
  return em.execute<EndpointRow[]>(`SELECT * FROM webhook_endpoints WHERE ${SCOPE} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, [...scopeArgs(s), limit, offset]);
}

/** Deletes (hides) an endpoint and drops its pending deliveries; false when it is not there. */
export async function deleteEndpoint(em: EntityManager, s: EndpointScope, id: string): Promise<boolean> {
  if (!(await findEndpoint(em, s, id))) return false;
  const rows = await em.execute(`UPDATE webhook_endpoints SET deleted_at = now() WHERE id = ? AND deleted_at IS NULL RETURNING id`, [id]);
  if (rows.length === 0) return false;
  await em.execute(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE endpoint_id = ? AND status = 'pending'`, [id]);
  return true;
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

/** A webhook.test delivery to the endpoint (the test action and `admin webhooks test`); returns its id. */
export async function queueTestDelivery(em: EntityManager, ep: EndpointRow): Promise<string> {
  const id = randomUUID();
  const body = deliveryBody(id, {
    type: 'webhook.test',
    created_at: new Date().toISOString(),
    organization_id: ep.organization_id,
    connected_app_id: ep.connected_app_id,
    environment: ep.environment,
    data: { endpoint_id: ep.id },
  });
  await insertDelivery(em, { id, endpointId: ep.id, eventId: randomUUID(), eventType: 'webhook.test', body, createdAt: new Date() });
  return id;
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

export async function listDeliveries(em: EntityManager, endpointId: string, limit: number, offset: number): Promise<WebhookDeliveryDto[]> {
  const rows = await em.execute<DeliveryRow[]>(
    `SELECT id, endpoint_id, event_id, event_type, status, attempt_count, next_attempt_at, delivered_at, created_at
       FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
    [endpointId, limit, offset],
  );
  return withAttempts(em, rows);
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
 * Claims due deliveries: rows locked with SKIP LOCKED (no two workers take the same one), then
 * leased by moving next_attempt_at past the send's timeout, so a worker that dies mid-send leaves a
 * delivery that comes due again (a retry, never a loss). Endpoints already at their concurrency
 * limit are skipped, and at most `perEndpoint(id)` rows are taken per endpoint.
 */
export async function claimDue(em: EntityManager, o: { limit: number; leaseMs: number; saturated: string[]; slots: (endpointId: string) => number }): Promise<ClaimedDelivery[]> {
  const candidates = await em.execute<{ id: string; endpoint_id: string }[]>(
    `SELECT d.id, d.endpoint_id FROM webhook_deliveries d
      WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND NOT (d.endpoint_id = ANY(?::uuid[]))
      ORDER BY d.next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED`,
    [`{${o.saturated.join(',')}}`, o.limit * 4],
  );
  const taken: string[] = [];
  const per = new Map<string, number>();
  for (const c of candidates) {
    if (taken.length >= o.limit) break;
    const n = per.get(c.endpoint_id) ?? 0;
    if (n >= o.slots(c.endpoint_id)) continue;
    per.set(c.endpoint_id, n + 1);
    taken.push(c.id);
  }
  if (taken.length === 0) return [];
  return em.execute<ClaimedDelivery[]>(
    `UPDATE webhook_deliveries d SET attempt_count = d.attempt_count + 1, next_attempt_at = now() + (? * interval '1 millisecond')
       FROM webhook_endpoints e
      WHERE d.id = ANY(?::uuid[]) AND e.id = d.endpoint_id
      RETURNING d.id, d.endpoint_id, d.body, d.attempt_count, e.url, e.environment, e.secret_encrypted`,
    [o.leaseMs, `{${taken.join(',')}}`],
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

export async function markDelivered(em: EntityManager, deliveryId: string, endpointId: string): Promise<void> {
  await em.execute(`UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), next_attempt_at = NULL WHERE id = ? AND status = 'pending'`, [deliveryId]);
  await em.execute(`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL`, [endpointId]);
}

/** A failed attempt: the next one after `retryInMs`, or the delivery fails (null). */
export async function markAttemptFailed(em: EntityManager, deliveryId: string, retryInMs: number | null): Promise<void> {
  if (retryInMs === null) await em.execute(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = ? AND status = 'pending'`, [deliveryId]);
  else await em.execute(`UPDATE webhook_deliveries SET next_attempt_at = now() + (? * interval '1 millisecond') WHERE id = ? AND status = 'pending'`, [retryInMs, deliveryId]);
}

/**
 * Notes a failure on the endpoint; once every delivery has failed for `disableAfterMs`, disables it
 * (saying why) and fails its pending deliveries. Returns true when it was disabled now.
 */
export async function noteEndpointFailure(em: EntityManager, endpointId: string, disableAfterMs: number): Promise<boolean> {
  const rows = await em.execute<{ failing_since: Date; disable: boolean }[]>(
    `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, now()) WHERE id = ?
     RETURNING failing_since, (status = 'enabled' AND failing_since <= now() - (? * interval '1 millisecond')) AS disable`,
    [endpointId, disableAfterMs],
  );
  const r = rows[0];
  if (!r?.disable) return false;
  const since = new Date(r.failing_since).toISOString();
  await em.execute(`UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ? WHERE id = ?`, [
    `Disabled automatically: every delivery failed since ${since} (${Math.round(disableAfterMs / 3_600_000)} h).`,
    endpointId,
  ]);
  await em.execute(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE endpoint_id = ? AND status = 'pending'`, [endpointId]);
  return true;
}

export async function backlog(em: EntityManager): Promise<{ pending: number; oldestAgeSeconds: number }> {
  const rows = await em.execute<{ pending: string; age: number | null }[]>(
    `SELECT count(*) AS pending, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS age FROM webhook_deliveries WHERE status = 'pending'`,
  );
  return { pending: Number(rows[0]?.pending ?? 0), oldestAgeSeconds: Number(rows[0]?.age ?? 0) };
}
