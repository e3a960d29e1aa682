import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@acct/kit';
import type { Member, Role } from './types';

/** The `members` table: the people of an organization who sign in to the dashboard. */

export interface MemberRow {
  id: string;
  organization_id: string;
  email: string;
  name: string;
  role: Role;
  password_hash: string;
  created_at: Date;
}

const COLUMNS = 'id, organization_id, email, name, role, password_hash, created_at';

export const toMember = (r: MemberRow): Member => ({
  id: r.id,
  organizationId: r.organization_id,
  email: r.email,
  name: r.name,
  role: r.role,
  createdAt: new Date(r.created_at),
});

/** A member as the JSON API shows it (docs/dashboard.md). */
export const memberJson = (m: Member) => ({
  id: m.id,
  email: m.email,
  name: m.name,
  role: m.role,
  organization_id: m.organizationId,
  created_at: m.createdAt.toISOString(),
});

/** Every membership of an email (one per organization), oldest first, with its password hash. */
export async function membersByEmail(em: EntityManager, email: string): Promise<Array<Member & { passwordHash: string }>> {
  const rows: MemberRow[] = await em.execute(`SELECT ${COLUMNS} FROM members WHERE lower(email) = lower(?) ORDER BY created_at, id LIMIT 10`, [email], 'all');
  return rows.map((r) => ({ ...toMember(r), passwordHash: r.password_hash }));
}

export async function memberById(em: EntityManager, organizationId: string, id: string, lock = false): Promise<(Member & { passwordHash: string }) | null> {
  const rows: MemberRow[] = await em.execute(`SELECT ${COLUMNS} FROM members WHERE organization_id = ? AND id = ?${lock ? ' FOR UPDATE' : ''}`, [organizationId, id], 'all');
  return rows[0] ? { ...toMember(rows[0]), passwordHash: rows[0].password_hash } : null;
}

export async function listMembers(em: EntityManager, organizationId: string): Promise<Member[]> {
  const rows: MemberRow[] = await em.execute(`SELECT ${COLUMNS} FROM members WHERE organization_id = ? ORDER BY created_at DESC, id DESC`, [organizationId], 'all');
  return rows.map(toMember);
}

export async function memberExists(em: EntityManager, organizationId: string, email?: string): Promise<boolean> {
  const rows: unknown[] = email
    ? await em.execute(`SELECT 1 FROM members WHERE organization_id = ? AND lower(email) = lower(?)`, [organizationId, email], 'all')
    : await em.execute(`SELECT 1 FROM members WHERE organization_id = ? LIMIT 1`, [organizationId], 'all');
  return rows.length > 0;
}

/** A new member; null when the organization has one with this email already. */
export async function insertMember(em: EntityManager, m: { organizationId: string; email: string; name: string; role: Role; passwordHash: string }): Promise<Member | null> {
  const rows: MemberRow[] = await em.execute(
    `INSERT INTO members (id, organization_id, email, name, role, password_hash) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (organization_id, lower(email)) DO NOTHING RETURNING ${COLUMNS}`,
    [randomUUID(), m.organizationId, m.email, m.name, m.role, m.passwordHash],
    'all',
  );
  return rows[0] ? toMember(rows[0]) : null;
}

/**
 * Locks the organization's owners (FOR UPDATE) and counts them: two owners demoting each other at
 * once are then serialized, and the second finds itself the last owner.
 */
export async function lockOwners(em: EntityManager, organizationId: string): Promise<string[]> {
  const rows: Array<{ id: string }> = await em.execute(`SELECT id FROM members WHERE organization_id = ? AND role = 'owner' ORDER BY id FOR UPDATE`, [organizationId], 'all');
  return rows.map((r) => r.id);
}

export async function setRole(em: EntityManager, id: string, role: Role): Promise<Member> {
  const rows: MemberRow[] = await em.execute(`UPDATE members SET role = ?, updated_at = now() WHERE id = ? RETURNING ${COLUMNS}`, [role, id], 'all');
  return toMember(rows[0]!);
}

export async function setPasswordHash(em: EntityManager, id: string, passwordHash: string): Promise<void> {
  await em.execute(`UPDATE members SET password_hash = ?, updated_at = now() WHERE id = ?`, [passwordHash, id], 'run');
}

/** Removes a member; their sessions and passkeys go with them (ON DELETE CASCADE). */
export async function deleteMember(em: EntityManager, id: string): Promise<void> {
  await em.execute(`DELETE FROM members WHERE id = ?`, [id], 'run');
}
