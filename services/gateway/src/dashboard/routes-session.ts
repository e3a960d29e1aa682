import type Router from '@koa/router';
import { AppError } from '@acct/contracts';
import type { EntityManager, Orm } from '@acct/kit';
import { OrganizationSchema } from '../entities';
import type { Ctx, Middleware } from '../middlewares/state';
import { recordAudit, signInRetryAfter } from './audit-log';
import { RateLimited, body, email, emailSchema, jsonBody, noBody } from './http';
import { memberById, memberJson, membersByEmail, setPasswordHash } from './members';
import { PASSWORD_MAX, PASSWORD_MIN, hashPassword, verifyOrDummy, verifyPassword } from './passwords';
import { createSession, endMemberSessions, endSession, hashSessionId, cookieName, sameOrigin, setSessionCookie, signedIn } from './sessions';
import type { Member, SessionResolver } from './types';

/** The routes of one's own session and password (docs/dashboard.md). */
export interface RouteDeps {
  orm: Pick<Orm, 'em'>;
  resolve: SessionResolver;
}

/** One message for an unknown email and a wrong password: the answer does not tell which. */
export const SIGN_IN_REFUSED = 'The email or password is not right.';

export const on = (r: Router, method: string, path: string, ...chain: Array<Middleware | Middleware[]>): void => {
  r.register(path, [method], chain.flat() as never);
};

const memberActor = (m: Member) => ({ memberId: m.id, email: m.email });

/**
 * Starts a session of `member` in the transaction `tx` (its audit row, session.created, with it),
 * ending the one the request's cookie named, if any: a new id at every sign-in. Returns what sets the
 * cookie once the transaction committed.
 */
export async function beginSession(tx: EntityManager, ctx: Ctx, member: Member): Promise<{ csrfToken: string; setCookie: () => void }> {
  const s = await openSession(tx, ctx, member);
  await recordAudit(tx, { organizationId: member.organizationId, actor: memberActor(member), action: 'session.created', target: member.id, address: ctx.ip || null });
  return s;
}

/** beginSession without its audit row (a passkey sign-in records its own, naming the passkey). */
async function openSession(tx: EntityManager, ctx: Ctx, member: Member): Promise<{ csrfToken: string; setCookie: () => void }> {
  const previous = ctx.cookies.get(cookieName(ctx));
  if (previous) await endSession(tx, hashSessionId(previous));
  const s = await createSession(tx, member.id);
  return { csrfToken: s.csrfToken, setCookie: () => setSessionCookie(ctx, s.id) };
}

/** passkeys-routes.ts's StartSession: a new session and its cookie (the passkey handler records session.created). */
export const startSession =
  (orm: RouteDeps['orm']) =>
  async (ctx: Ctx, member: Member): Promise<{ csrf_token: string }> => {
    const s = await orm.em.fork().transactional((tx) => openSession(tx, ctx, member));
    s.setCookie();
    return { csrf_token: s.csrfToken };
  };

/** 429 while the email has had too many failed sign-ins lately (counted in the audit log). */
async function checkSignInLimit(em: EntityManager, address: string): Promise<void> {
  const wait = await signInRetryAfter(em, address);
  if (wait > 0) throw new RateLimited('Too many failed sign-ins for this email.', wait);
}

async function recordFailure(em: EntityManager, ctx: Ctx, e: string, organizationId: string | null, memberId: string | null): Promise<void> {
  await recordAudit(em, { organizationId, actor: { memberId, email: e }, action: 'session.failed', target: e, address: ctx.ip || null });
}

function signIn({ orm }: RouteDeps): Middleware {
  return async (ctx) => {
    const b = body<{ email: string; password: string }>(ctx);
    const e = email(b.email);
    const em = orm.em.fork();
    await checkSignInLimit(em, e);
    const members = await membersByEmail(em, e);
    let found: Member | null = null;
    // Unknown email: the same scrypt work on a dummy hash, the same 401.
    if (members.length === 0) await verifyOrDummy(null, b.password);
    for (const m of members) {
      if (await verifyPassword(m.passwordHash, b.password)) {
        found = m;
        break;
      }
    }
    if (!found) {
      await recordFailure(em, ctx, e, members[0]?.organizationId ?? null, null);
      throw new AppError('unauthorized', SIGN_IN_REFUSED);
    }
    const member = found;
    const s = await em.transactional((tx) => beginSession(tx, ctx, member));
    s.setCookie();
    ctx.body = { data: { member: memberJson(member), csrf_token: s.csrfToken } };
  };
}

function whoAmI({ orm }: RouteDeps): Middleware {
  return async (ctx) => {
    const s = ctx.state.dashboard!;
    const org = await orm.em.fork().findOne(OrganizationSchema, { id: s.member.organizationId });
    ctx.body = { data: { member: memberJson(s.member), csrf_token: s.csrfToken, organization: { id: s.member.organizationId, name: org?.name ?? '' } } };
  };
}

function signOut({ orm }: RouteDeps, everywhere: boolean): Middleware {
  return async (ctx) => {
    const s = ctx.state.dashboard!;
    await orm.em.fork().transactional(async (tx) => {
      if (everywhere) await endMemberSessions(tx, s.member.id);
      else await endSession(tx, s.idHash);
      await recordAudit(tx, {
        organizationId: s.member.organizationId,
        actor: memberActor(s.member),
        action: everywhere ? 'sessions.ended' : 'session.ended',
        target: s.member.id,
        address: ctx.ip || null,
      });
    });
    setSessionCookie(ctx, null);
    ctx.status = 204;
  };
}

/**
 * A new password, given the current one: the member's other sessions end. A wrong current password
 * counts as a failed sign-in of the member's email (the same limit: a stolen session cannot guess it).
 */
function changePassword({ orm }: RouteDeps): Middleware {
  return async (ctx) => {
    const s = ctx.state.dashboard!;
    const b = body<{ current_password: string; new_password: string }>(ctx);
    const em = orm.em.fork();
    await checkSignInLimit(em, s.member.email);
    const m = await memberById(em, s.member.organizationId, s.member.id);
    if (!m || !(await verifyPassword(m.passwordHash, b.current_password))) {
      await recordFailure(em, ctx, s.member.email, s.member.organizationId, s.member.id);
      throw AppError.validation('The current password is not right.', [
        { field: '/current_password', issue: 'incorrect', message: 'current_password must be the password you sign in with.' },
      ]);
    }
    const hash = await hashPassword(b.new_password);
    await em.transactional(async (tx) => {
      await setPasswordHash(tx, s.member.id, hash);
      await endMemberSessions(tx, s.member.id, s.idHash);
      await recordAudit(tx, { organizationId: s.member.organizationId, actor: memberActor(s.member), action: 'password.changed', target: s.member.id, address: ctx.ip || null });
    });
    ctx.status = 204;
  };
}

export const newPasswordSchema = { type: 'string', minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX } as const;

export function sessionRoutes(r: Router, d: RouteDeps): void {
  const auth = signedIn(d.resolve);
  const signInBody = jsonBody({
    type: 'object',
    required: ['email', 'password'],
    properties: { email: emailSchema, password: { type: 'string', minLength: 1, maxLength: PASSWORD_MAX } },
  });
  on(r, 'POST', '/session', sameOrigin, signInBody, signIn(d));
  on(r, 'GET', '/session', noBody, auth, whoAmI(d));
  on(r, 'DELETE', '/session', noBody, auth, signOut(d, false));
  on(r, 'DELETE', '/sessions', noBody, auth, signOut(d, true));
  const passwordBody = jsonBody({
    type: 'object',
    required: ['current_password', 'new_password'],
    properties: { current_password: { type: 'string', minLength: 1, maxLength: PASSWORD_MAX }, new_password: newPasswordSchema },
  });
  on(r, 'PUT', '/password', auth, passwordBody, changePassword(d));
}
