import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@acct/kit';
import type { Actor } from './types';

/** What the audit log records (docs/dashboard.md "Audit actions"). */
export const AUDIT_ACTIONS = [
  'session.created',
  'session.failed',
  'session.ended',
  'sessions.ended',
  'password.changed',
  'invite.created',
  'invite.accepted',
  'member.role_changed',
  'member.removed',
  'app.created',
  'api_key.created',
  'api_key.rolled',
  'api_key.revoked',
  'passkey.registered',
  'passkey.removed',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'books_lock.updated',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  /** Null only for a failed sign-in with an email no member has. */
  organizationId: string | null;
  actor: Actor;
  action: AuditAction;
  /** What was acted on: a member's, key's, endpoint's id, or the email of a sign-in. */
  target: string | null;
  /** The client address of the request (none from the CLI). */
  address: string | null;
}

/** Kept a year (API-DECISIONS §13). */
export const AUDIT_RETENTION_DAYS = 365;

/**
 * Appends one entry. Pass the EntityManager of the transaction that makes the change, so the entry
 * and the change commit together (or neither does).
 */
export async function recordAudit(em: EntityManager, e: AuditEntry): Promise<void> {
  const actorMemberId = e.actor === 'admin-cli' ? null : e.actor.memberId;
  const actorEmail = e.actor === 'admin-cli' ? 'admin-cli' : e.actor.email;
  // em.execute runs in em's transaction when it has one.
  await em.execute(
    `INSERT INTO audit_log (id, organization_id, actor_member_id, actor_email, action, target, address) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [randomUUID(), e.organizationId, actorMemberId, actorEmail, e.action, e.target, e.address],
    'run',
  );
}

/** The sign-in limit: this many `session.failed` rows for an email within the window → 429. */
export const SIGN_IN_FAILURES_MAX = 5;
export const SIGN_IN_WINDOW_MINUTES = 15;

/**
 * Seconds until an email may try to sign in again (0: now): with SIGN_IN_FAILURES_MAX failures in
 * the window, until the oldest of the latest ones leaves it. Counted from the audit log itself
 * (index audit_log_failed_sign_ins), so every replica sees the same count.
 */
export async function signInRetryAfter(em: EntityManager, email: string): Promise<number> {
  const rows: Array<{ retry_s: number }> = await em.execute(
    `SELECT ceil(extract(epoch FROM created_at + make_interval(mins => ?) - now()))::int AS retry_s
       FROM audit_log
      WHERE action = 'session.failed' AND lower(target) = lower(?) AND created_at > now() - make_interval(mins => ?)
      ORDER BY created_at DESC LIMIT ?`,
    [SIGN_IN_WINDOW_MINUTES, email, SIGN_IN_WINDOW_MINUTES, SIGN_IN_FAILURES_MAX],
    'all',
  );
  return rows.length < SIGN_IN_FAILURES_MAX ? 0 : Math.max(1, rows[rows.length - 1]!.retry_s);
}

export interface AuditRow {
  id: string;
  actor: { member_id: string | null; email: string };
  action: string;
  target: string | null;
  address: string | null;
  created_at: string;
}

/** Whether `id` is an entry of the organization's log (a cursor must be). */
export async function auditEntryExists(em: EntityManager, organizationId: string, id: string): Promise<boolean> {
  const rows: unknown[] = await em.execute(`SELECT 1 FROM audit_log WHERE organization_id = ? AND id = ?`, [organizationId, id], 'all');
  return rows.length > 0;
}

/**
 * A page of the organization's log, newest first (by seq): `limit + 1` rows read from the cursor's
 * entry in the direction walked (older for starting_after, newer for ending_before, nearest first).
 */
export async function auditPage(
  em: EntityManager,
  organizationId: string,
  limit: number,
  cursor: { param: 'starting_after' | 'ending_before'; id: string } | null,
): Promise<AuditRow[]> {
  const older = cursor?.param !== 'ending_before';
  const where = cursor ? ` AND seq ${older ? '<' : '>'} (SELECT seq FROM audit_log WHERE id = ?)` : '';
  const rows: Array<{ id: string; actor_member_id: string | null; actor_email: string; action: string; target: string | null; address: string | null; created_at: Date }> =
    await em.execute(
      `SELECT id, actor_member_id, actor_email, action, target, address, created_at FROM audit_log
        WHERE organization_id = ?${where} ORDER BY seq ${older ? 'DESC' : 'ASC'} LIMIT ?`,
      [organizationId, ...(cursor ? [cursor.id] : []), limit + 1],
      'all',
    );
  return rows.map((r) => ({
    id: r.id,
    actor: { member_id: r.actor_member_id, email: r.actor_email },
    action: r.action,
    target: r.target,
    address: r.address,
    created_at: new Date(r.created_at).toISOString(),
  }));
}

/** Deletes entries older than AUDIT_RETENTION_DAYS, `batch` rows a statement, at most `maxBatches` statements; returns how many. */
export async function purgeAudit(em: EntityManager, batch = 1000, maxBatches = 100): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const rows: Array<{ n: number }> = await em.execute(
      `WITH old AS (SELECT id FROM audit_log WHERE created_at < now() - make_interval(days => ?) ORDER BY created_at LIMIT ?)
       , gone AS (DELETE FROM audit_log a USING old WHERE a.id = old.id RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [AUDIT_RETENTION_DAYS, batch],
      'all',
    );
    total += rows[0]!.n;
    if (rows[0]!.n < batch) break;
  }
  return total;
}
