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
