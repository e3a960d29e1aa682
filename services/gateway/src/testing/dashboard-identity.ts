/** Helpers of the dashboard's integration tests: members made through real invitations, signed-in calls. */
import { inviteMember } from '../admin/admin';
import type { Role } from '../dashboard/types';
import type { GatewayBed } from './int-gateway';

export const PASSWORD = 'correct horse battery staple';

/** A signed-in member: their cookie (name=value) and CSRF token. */
export interface Signed {
  cookie: string;
  csrf: string;
  member: { id: string; email: string; role: Role; organization_id: string; name: string; created_at: string };
}

/** The session cookie a response set (`name=value`), or null. */
export function sessionCookie(r: Response): string | null {
  const set = r.headers.getSetCookie().find((c) => /^(__Host-)?dashboard_session=/.test(c));
  return set ? set.split(';')[0]! : null;
}

export const tokenOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);

/** Invites `email` through the admin function (as the CLI does) and returns the invitation's token. */
export async function adminInvite(bed: GatewayBed, organizationId: string, email: string, role: Role): Promise<string> {
  const i = await inviteMember(bed.orm.em.fork(), { organizationId, email, role, base: 'http://127.0.0.1/dashboard' });
  return tokenOf(i.invite_url);
}

export function dashboardCalls(bed: GatewayBed, base: string) {
  const api = (path: string, init: RequestInit & { json?: unknown; as?: Signed; csrf?: string | null } = {}): Promise<Response> => {
    const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
    if (init.as) {
      headers.cookie = init.as.cookie;
      const csrf = init.csrf === undefined ? init.as.csrf : init.csrf;
      if (csrf !== null) headers['csrf-token'] = csrf;
    }
    return bed.call(base, `/dashboard/api${path}`, { ...init, headers });
  };
  const signedFrom = async (r: Response): Promise<Signed> => {
    const body = (await r.json()) as { data: { member: Signed['member']; csrf_token: string } };
    return { cookie: sessionCookie(r)!, csrf: body.data.csrf_token, member: body.data.member };
  };
  /** A new member of the organization, invited and accepted (signed in). */
  const join = async (organizationId: string, email: string, role: Role): Promise<Signed> => {
    const token = await adminInvite(bed, organizationId, email, role);
    const r = await api(`/invites/${token}/accept`, { method: 'POST', json: { name: email.split('@')[0], password: PASSWORD } });
    if (r.status !== 201) throw new Error(`accept: ${r.status} ${await r.text()}`);
    return signedFrom(r);
  };
  const signIn = (email: string, password = PASSWORD) => api('/session', { method: 'POST', json: { email, password } });
  return { api, join, signIn, signedFrom };
}
