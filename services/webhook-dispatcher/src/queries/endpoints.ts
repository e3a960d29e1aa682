import type { Environment, Metadata, WebhookEndpointDto, WebhookEventType } from '@acct/contracts';
import { type EntityManager, type ListQuery, keysetSql } from '@acct/kit';

/** The webhook_endpoints table: an endpoint's row, its reads and writes, and who subscribes to a type. */

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

/** An endpoint by id alone (the operator's CLI), deleted ones excluded. */
export async function findEndpointById(em: EntityManager, id: string): Promise<EndpointRow | null> {
  const rows = await em.execute<EndpointRow[]>(`SELECT * FROM webhook_endpoints WHERE id = ? AND deleted_at IS NULL`, [id]);
  return rows[0] ?? null;
}
