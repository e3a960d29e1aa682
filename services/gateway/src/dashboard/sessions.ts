import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '@acct/contracts';
import type { EntityManager, Orm } from '@acct/kit';
import type { Ctx, Middleware } from '../middlewares/state';
import { type MemberRow, toMember } from './members';
import type { DashboardSession, Role, SessionResolver } from './types';

/**
 * Dashboard sessions (`dashboard_sessions`): the cookie holds 32 random bytes (base64url), the
 * table their SHA-256, so a copy of the table signs nobody in. A new id at every sign-in (no
 * fixation); idle timeout 12 h (last_seen_at, written at most once a minute), absolute 7 days.
 */
export const SESSION_IDLE_HOURS = 12;
export const SESSION_ABSOLUTE_DAYS = 7;
const LAST_SEEN_EVERY_SECONDS = 60;

export const SECURE_COOKIE = '__Host-dashboard_session';
export const LOCAL_COOKIE = 'dashboard_session';

export const hashSessionId = (id: string): string => createHash('sha256').update(id).digest('hex');

/** Starts a session of the member: the id for the cookie (never stored) and the session's CSRF token. */
export async function createSession(em: EntityManager, memberId: string): Promise<{ id: string; idHash: string; csrfToken: string }> {
  const id = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const idHash = hashSessionId(id);
  await em.execute(`INSERT INTO dashboard_sessions (id_hash, member_id, csrf_token) VALUES (?, ?, ?)`, [idHash, memberId, csrfToken], 'run');
  return { id, idHash, csrfToken };
}

export async function endSession(em: EntityManager, idHash: string): Promise<void> {
  await em.execute(`UPDATE dashboard_sessions SET ended_at = now() WHERE id_hash = ? AND ended_at IS NULL`, [idHash], 'run');
}

/** Ends every session of the member, but `keepIdHash` when given (a password change keeps its own). */
export async function endMemberSessions(em: EntityManager, memberId: string, keepIdHash: string | null = null): Promise<void> {
  await em.execute(`UPDATE dashboard_sessions SET ended_at = now() WHERE member_id = ? AND ended_at IS NULL AND id_hash IS DISTINCT FROM ?`, [memberId, keepIdHash], 'run');
}

/** Whether the request came over plain http to this machine: the cookie then cannot be `Secure`. */
export const isLocalPlainHttp = (ctx: Ctx): boolean => ctx.protocol === 'http' && (ctx.hostname === 'localhost' || ctx.hostname === '127.0.0.1');

export const cookieName = (ctx: Ctx): string => (isLocalPlainHttp(ctx) ? LOCAL_COOKIE : SECURE_COOKIE);

/**
 * Sets the session cookie (or clears it, id null). Written by hand: Koa's cookies refuse a Secure
 * cookie on a connection they do not see as TLS, which is the gateway's behind a TLS proxy.
 */
export function setSessionCookie(ctx: Ctx, id: string | null): void {
  const local = isLocalPlainHttp(ctx);
  const maxAge = id === null ? 0 : SESSION_ABSOLUTE_DAYS * 24 * 3600;
  const attrs = [`${cookieName(ctx)}=${id ?? ''}`, 'Path=/', `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Strict', ...(local ? [] : ['Secure'])];
  ctx.append('Set-Cookie', attrs.join('; '));
}

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** A session row joined with its member's row. */
interface SessionRow extends MemberRow {
  id_hash: string;
  csrf_token: string;
  seen_ago_s: number;
}

/** Resolves the request's session cookie to its live session (and notes it was seen), or null. */
export function sessionResolver(orm: Pick<Orm, 'em'>): SessionResolver {
  return async (ctx) => {
    const id = ctx.cookies.get(cookieName(ctx));
    if (!id || !SESSION_ID.test(id)) return null;
    const em = orm.em.fork();
    const rows: SessionRow[] = await em.execute(
      `SELECT s.id_hash, s.csrf_token, extract(epoch FROM now() - s.last_seen_at)::float8 AS seen_ago_s,
              m.id, m.organization_id, m.email, m.name, m.role, m.password_hash, m.created_at
         FROM dashboard_sessions s JOIN members m ON m.id = s.member_id
        WHERE s.id_hash = ? AND s.ended_at IS NULL
          AND s.last_seen_at > now() - make_interval(hours => ?)
          AND s.created_at > now() - make_interval(days => ?)`,
      [hashSessionId(id), SESSION_IDLE_HOURS, SESSION_ABSOLUTE_DAYS],
      'all',
    );
    const row = rows[0];
    if (!row) return null;
    if (row.seen_ago_s >= LAST_SEEN_EVERY_SECONDS) {
      await em.execute(`UPDATE dashboard_sessions SET last_seen_at = now() WHERE id_hash = ?`, [row.id_hash], 'run');
    }
    return { member: toMember(row), idHash: row.id_hash, csrfToken: row.csrf_token };
  };
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
/** Constant-time equality of two strings of any lengths (their digests are compared). */
export const sameSecret = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b));

const isSafeMethod = (ctx: Ctx): boolean => ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'OPTIONS';

/** The request's own origin, as a browser would name it (Koa 3's ctx.origin is the Origin header). */
export const ownOrigin = (ctx: Ctx): string => `${ctx.protocol}://${ctx.host}`;

/** An `Origin` header, when sent, must be the request's own origin (403 forbidden otherwise). */
export const sameOrigin: Middleware = async (ctx, next) => {
  const origin = ctx.get('origin');
  if (!isSafeMethod(ctx) && origin && origin !== ownOrigin(ctx)) {
    throw new AppError('forbidden', 'The request came from another origin.');
  }
  await next();
};

/**
 * Signed-in requests only: the session cookie resolved to ctx.state.dashboard (401 unauthorized
 * otherwise); a non-GET request must carry header `CSRF-Token` equal to the session's token and, when
 * it sends an Origin, the request's own (403 forbidden otherwise).
 */
export function signedIn(resolve: SessionResolver): Middleware {
  return async (ctx, next) => {
    const session: DashboardSession | null = await resolve(ctx);
    if (!session) throw new AppError('unauthorized', 'Sign in to the dashboard.');
    if (!isSafeMethod(ctx) && !sameSecret(ctx.get('csrf-token'), session.csrfToken)) {
      throw new AppError('forbidden', 'The CSRF-Token header is missing or does not match the session.');
    }
    ctx.state.dashboard = session;
    await sameOrigin(ctx, next);
  };
}

/** After signedIn: only members of one of `roles` (403 forbidden otherwise). */
export function allow(...roles: Role[]): Middleware {
  return async (ctx, next) => {
    if (!ctx.state.dashboard || !roles.includes(ctx.state.dashboard.member.role)) {
      throw new AppError('forbidden', `This needs the role ${roles.join(' or ')}.`);
    }
    await next();
  };
}
