import type { Ctx } from '../middlewares/state';

/** Members' roles (API-DECISIONS §13; what each may do: docs/dashboard.md "Roles"). */
export const ROLES = ['owner', 'developer', 'accountant', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** A member of an organization, as the gateway's `members` table holds it (the password hash aside). */
export interface Member {
  id: string;
  organizationId: string;
  email: string;
  name: string;
  role: Role;
  createdAt: Date;
}

/** The signed-in member of a dashboard request, set by the session middleware in ctx.state.dashboard. */
export interface DashboardSession {
  member: Member;
  /** SHA-256 (hex) of the session id: the `dashboard_sessions` row. */
  idHash: string;
  csrfToken: string;
}

/** Who did something the audit log records: a member, or the operator's CLI. */
/** memberId null: a failed sign-in, whose email may belong to nobody. */
export type Actor = { memberId: string | null; email: string } | 'admin-cli';

/** Resolves the session cookie of a request; null when there is none or it ended. */
export type SessionResolver = (ctx: Ctx) => Promise<DashboardSession | null>;
