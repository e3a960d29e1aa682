import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '@acct/contracts';
import type { EntityManager } from '@acct/kit';
import { recordAudit } from './audit-log';
import { RateLimited } from './http';
import { memberExists } from './members';
import type { Actor, Role } from './types';

/**
 * The `invitations` table: an owner (or the operator's CLI) invites an email with a role; the
 * invitation's link holds a random token (32 bytes, base64url), the table its SHA-256. Single use,
 * 72 hours, at most 20 an hour per organization.
 */
export const INVITE_HOURS = 72;
export const INVITES_PER_HOUR = 20;

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export interface Invitation {
  id: string;
  organizationId: string;
  organizationName: string;
  email: string;
  role: Role;
  expiresAt: Date;
}

interface InvitationRow {
  id: string;
  organization_id: string;
  organization_name: string;
  email: string;
  role: Role;
  expires_at: Date;
}

const toInvitation = (r: InvitationRow): Invitation => ({
  id: r.id,
  organizationId: r.organization_id,
  organizationName: r.organization_name,
  email: r.email,
  role: r.role,
  expiresAt: new Date(r.expires_at),
});

/** The link of an invitation: `<dashboard base>/invite/<token>`. */
export const inviteUrl = (base: string, token: string): string => `${base.replace(/\/+$/, '')}/invite/${token}`;

/**
 * Creates an invitation and its audit row (invite.created) through `em`, which must be in a
 * transaction: the organization's row is locked while its invitations of the last hour are counted,
 * so concurrent invitations cannot pass the limit together. 429 past the limit, 404 for an unknown
 * organization, 409 for the email of a member.
 */
export async function createInvitation(
  em: EntityManager,
  i: { organizationId: string; email: string; role: Role; actor: Actor; address: string | null },
): Promise<{ invitation: Invitation; token: string }> {
  const org: Array<{ name: string }> = await em.execute(`SELECT name FROM organizations WHERE id = ? FOR UPDATE`, [i.organizationId], 'all');
  if (!org[0]) throw AppError.notFound('Organization', i.organizationId);
  const recent: Array<{ n: number; retry_s: number | null }> = await em.execute(
    `SELECT count(*)::int AS n, ceil(extract(epoch FROM min(created_at) + interval '1 hour' - now()))::int AS retry_s
       FROM invitations WHERE organization_id = ? AND created_at > now() - interval '1 hour'`,
    [i.organizationId],
    'all',
  );
  if (recent[0]!.n >= INVITES_PER_HOUR) {
    throw new RateLimited(`At most ${INVITES_PER_HOUR} invitations an hour per organization.`, Math.max(1, recent[0]!.retry_s ?? 1));
  }
  if (await memberExists(em, i.organizationId, i.email)) throw AppError.conflict('The organization already has a member with this email.');
  const token = randomBytes(32).toString('base64url');
  const invitedBy = i.actor === 'admin-cli' ? 'admin-cli' : i.actor.memberId;
  const rows: InvitationRow[] = await em.execute(
    `INSERT INTO invitations (id, organization_id, email, role, token_hash, invited_by, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, now() + make_interval(hours => ?))
     RETURNING id, organization_id, ? AS organization_name, email, role, expires_at`,
    [randomUUID(), i.organizationId, i.email, i.role, hashToken(token), invitedBy, INVITE_HOURS, org[0].name],
    'all',
  );
  const invitation = toInvitation(rows[0]!);
  await recordAudit(em, { organizationId: i.organizationId, actor: i.actor, action: 'invite.created', target: i.email, address: i.address });
  return { invitation, token };
}

const LIVE = `i.accepted_at IS NULL AND i.expires_at > now()`;
const SELECT = `SELECT i.id, i.organization_id, o.name AS organization_name, i.email, i.role, i.expires_at FROM invitations i JOIN organizations o ON o.id = i.organization_id`;

/** The invitation of a token, while it is neither used nor expired; null otherwise. */
export async function invitationByToken(em: EntityManager, token: string): Promise<Invitation | null> {
  const rows: InvitationRow[] = await em.execute(`${SELECT} WHERE i.token_hash = ? AND ${LIVE}`, [hashToken(token)], 'all');
  return rows[0] ? toInvitation(rows[0]) : null;
}

/** Marks the token's invitation used and returns it, in one statement (single use: a second accept finds none). */
export async function useInvitation(em: EntityManager, token: string): Promise<Invitation | null> {
  const rows: InvitationRow[] = await em.execute(
    `UPDATE invitations i SET accepted_at = now() FROM organizations o
      WHERE o.id = i.organization_id AND i.token_hash = ? AND ${LIVE}
      RETURNING i.id, i.organization_id, o.name AS organization_name, i.email, i.role, i.expires_at`,
    [hashToken(token)],
    'all',
  );
  return rows[0] ? toInvitation(rows[0]) : null;
}
