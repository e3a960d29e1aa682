import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, type Environment } from '@acct/contracts';
import type { EntityManager } from '@acct/kit';
import { ApiKeySchema, ConnectedAppSchema, type ApiKey } from '../entities';
import { generateKey, hashKey, keyPrefix } from '../keys';
import { recordAudit } from './audit-log';
import { emitApiKeyRevoked } from './key-events';
import type { Actor } from './types';

/**
 * Making, rolling, revoking and listing API keys (API-DECISIONS §13 "Keys"): the one implementation
 * the dashboard's key routes and the admin CLI share. Each change writes its audit row in its own
 * transaction (a savepoint when the caller already has one).
 */

/** `active`; `expiring`: rolled, works until expires_at; `revoked`: revoked, or past expires_at. */
export type KeyStatus = 'active' | 'expiring' | 'revoked';

/** A key as the dashboard and the CLI show it (docs/dashboard.md): never the key itself, nor its hash. */
export interface KeyView {
  id: string;
  environment: Environment;
  /** The first 12 and the last 4 characters (`svc_test_AbC…wXyZ`); keys made before the last 4 were kept show only the first 12. */
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  status: KeyStatus;
}

/** Who changes a key, and from where (the request's client address; none from the CLI). */
export interface KeyChange {
  actor?: Actor;
  address?: string | null;
  /** The key must be one of this app's, of this environment (404 otherwise): the dashboard acts within an app and environment. */
  connectedAppId?: string;
  environment?: Environment;
}

/** What the outbound `api_key.revoked` event carries (API-DECISIONS §13). */
export interface ApiKeyRevoked {
  api_key_id: string;
  connected_app_id: string;
  organization_id: string;
  environment: Environment;
  revoked_at: string;
}

/** The longest a rolled key keeps working (`expire_current_in_hours`). */
export const ROLL_EXPIRY_HOURS_MAX = 168;

const PREFIX_SHOWN = 12;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function keyStatus(k: Pick<ApiKey, 'revokedAt' | 'expiresAt'>, now = new Date()): KeyStatus {
  if (k.revokedAt || (k.expiresAt && k.expiresAt.getTime() <= now.getTime())) return 'revoked';
  return k.expiresAt ? 'expiring' : 'active';
}

export function keyView(k: ApiKey, now = new Date()): KeyView {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    id: k.id,
    environment: k.environment,
    prefix: `${k.keyPrefix.slice(0, PREFIX_SHOWN)}…${k.keyLast4 ?? ''}`,
    created_at: k.createdAt.toISOString(),
    last_used_at: iso(k.lastUsedAt),
    expires_at: iso(k.expiresAt),
    status: keyStatus(k, now),
  };
}

const actorOf = (c: KeyChange): Actor => c.actor ?? 'admin-cli';

/** A new key's row (not yet flushed) and the key in full. */
function issue(em: EntityManager, app: { id: string; organizationId: string }, environment: Environment): { row: ApiKey; key: string } {
  const key = generateKey(environment);
  const row = em.create(ApiKeySchema, {
    id: randomUUID(),
    connectedAppId: app.id,
    organizationId: app.organizationId,
    environment,
    keyPrefix: keyPrefix(key),
    keyHash: hashKey(key),
    keyLast4: key.slice(-4),
    createdAt: new Date(),
    revokedAt: null,
    expiresAt: null,
    lastUsedAt: null,
  });
  return { row, key };
}

/** A new key of the app. Returns the key in full: this is the only time it exists outside the caller. */
export async function createApiKey(em: EntityManager, connectedAppId: string, environment: Environment, change: KeyChange = {}): Promise<{ id: string; key: string; row: ApiKey }> {
  return em.transactional(async (tx) => {
    const app = UUID.test(connectedAppId) ? await tx.findOne(ConnectedAppSchema, { id: connectedAppId }) : null;
    if (!app) throw AppError.notFound('Connected app', connectedAppId);
    const { row, key } = issue(tx, app, environment);
    await tx.persistAndFlush(row);
    await recordAudit(tx, { organizationId: app.organizationId, actor: actorOf(change), action: 'api_key.created', target: row.id, address: change.address ?? null });
    return { id: row.id, key, row };
  });
}

/** The key by id (or by the key itself, from the CLI), locked for the change; 404 when it is not (the app's). */
async function lockedKey(tx: EntityManager, idOrKey: string, change: KeyChange): Promise<ApiKey> {
  const where = idOrKey.startsWith('svc_') ? { keyHash: hashKey(idOrKey) } : UUID.test(idOrKey) ? { id: idOrKey.toLowerCase() } : null;
  const row = where ? await tx.findOne(ApiKeySchema, where, { lockMode: LockMode.PESSIMISTIC_WRITE }) : null;
  const outside =
    (change.connectedAppId !== undefined && row?.connectedAppId !== change.connectedAppId) || (change.environment !== undefined && row?.environment !== change.environment);
  if (!row || outside) throw AppError.notFound('API key', idOrKey.startsWith('svc_') ? undefined : idOrKey);
  return row;
}

/** The 422 of an `expire_current_in_hours` that is not a whole number of hours from 0 to 168. */
export function checkRollHours(hours: unknown, field = 'expire_current_in_hours'): number {
  if (typeof hours === 'number' && Number.isInteger(hours) && hours >= 0 && hours <= ROLL_EXPIRY_HOURS_MAX) return hours;
  throw AppError.validation(`${field} must be a whole number of hours from 0 to ${ROLL_EXPIRY_HOURS_MAX}.`, [
    { field: field.startsWith('--') ? field : `/${field}`, issue: 'out_of_range', message: `Give 0 (the current key stops at once) to ${ROLL_EXPIRY_HOURS_MAX}.` },
  ]);
}

/**
 * Rolls a key: a new key of the same app and environment, and the current one expires in
 * `expireCurrentInHours` (0: at once; never later than an expiry it already had). A revoked or
 * expired key cannot be rolled (409).
 */
export async function rollApiKey(em: EntityManager, keyId: string, expireCurrentInHours: number, change: KeyChange = {}): Promise<{ key: string; row: ApiKey; previous: ApiKey }> {
  const hours = checkRollHours(expireCurrentInHours);
  return em.transactional(async (tx) => {
    const previous = await lockedKey(tx, keyId, change);
    const now = new Date();
    if (keyStatus(previous, now) === 'revoked') throw AppError.conflict(`API key ${previous.id} is revoked or expired: make a new key instead.`);
    const expiresAt = new Date(now.getTime() + hours * 3_600_000);
    if (!previous.expiresAt || expiresAt < previous.expiresAt) previous.expiresAt = expiresAt;
    const { row, key } = issue(tx, { id: previous.connectedAppId, organizationId: previous.organizationId }, previous.environment);
    tx.persist(row);
    await tx.flush();
    await recordAudit(tx, { organizationId: previous.organizationId, actor: actorOf(change), action: 'api_key.rolled', target: previous.id, address: change.address ?? null });
    return { key, row, previous };
  });
}

/**
 * Revokes a key by id (or by the key itself, from the CLI) at once: every replica refuses it within
 * AUTH_CACHE_TTL_MS. `revoked` is what the outbound `api_key.revoked` event carries, null when the key
 * was revoked already (nothing changes, nothing is recorded).
 */
export async function revokeApiKey(em: EntityManager, idOrKey: string, change: KeyChange = {}): Promise<{ row: ApiKey; revoked: ApiKeyRevoked | null }> {
  return em.transactional(async (tx) => {
    const row = await lockedKey(tx, idOrKey, change);
    if (row.revokedAt) return { row, revoked: null };
    row.revokedAt = new Date();
    await tx.flush();
    await recordAudit(tx, { organizationId: row.organizationId, actor: actorOf(change), action: 'api_key.revoked', target: row.id, address: change.address ?? null });
    const data: ApiKeyRevoked = {
      api_key_id: row.id,
      connected_app_id: row.connectedAppId,
      organization_id: row.organizationId,
      environment: row.environment,
      revoked_at: row.revokedAt.toISOString(),
    };
    // Outbound `api_key.revoked` (API-DECISIONS §13), with tx: it commits with the revocation, or neither does.
    await emitApiKeyRevoked(tx, data);
    return { row, revoked: data };
  });
}

/** The app's keys (of one environment when given), newest first, as shown (never a key or its hash). */
export async function listApiKeys(em: EntityManager, connectedAppId: string, environment?: Environment, now = new Date()): Promise<KeyView[]> {
  if (!UUID.test(connectedAppId)) return [];
  const rows = await em.find(ApiKeySchema, { connectedAppId, ...(environment ? { environment } : {}) }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  return rows.map((k) => keyView(k, now));
}
