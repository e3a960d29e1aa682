import type { Role } from '../roles';

/** Shapes of the dashboard-only answers (docs/dashboard.md "The JSON API"). */
export interface Member {
  id: string;
  email: string;
  name: string;
  role: Role;
  organization_id: string;
  created_at: string;
}

export interface SessionInfo {
  member: Member;
  csrf_token: string;
  organization?: { id: string; name: string };
}

export interface ConnectedApp {
  id: string;
  name: string;
  status: string;
  created_at: string;
}

export interface ApiKey {
  id: string;
  environment: 'test' | 'live';
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  status: 'active' | 'expiring' | 'revoked';
}

export interface Invite {
  id: string;
  email: string;
  role: Role;
  expires_at: string;
  invite_url: string;
}

export interface InviteInfo {
  email: string;
  role: Role;
  organization: { name: string };
  expires_at: string;
}

export interface AuditEntry {
  id: string;
  actor: { member_id: string | null; email: string };
  action: string;
  target: string | null;
  address: string | null;
  created_at: string;
}

export interface Passkey {
  id: string;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
}
