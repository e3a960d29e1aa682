import type Router from '@koa/router';
import { AppError } from '@acct/contracts';
import type { Middleware } from '../middlewares/state';
import { recordAudit } from './audit-log';
import { body, email, emailSchema, jsonBody, noBody } from './http';
import { createInvitation, invitationByToken, inviteUrl, useInvitation } from './invitations';
import { insertMember, memberJson } from './members';
import { hashPassword } from './passwords';
import { type RouteDeps, beginSession, newPasswordSchema, on } from './routes-session';
import { allow, ownOrigin, sameOrigin, signedIn } from './sessions';
import { ROLES, type Role } from './types';

/** Invitations: an owner invites an email with a role; the invitee opens the link and becomes a member. */

export interface InviteDeps extends RouteDeps {
  /** Where the dashboard is, for the invitation's link; the request's own origin + /dashboard by default. */
  dashboardUrl?: string;
}

const NAME_MAX = 200;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const gone = () => AppError.notFound('Invitation');

function invite(d: InviteDeps): Middleware {
  return async (ctx) => {
    const s = ctx.state.dashboard!;
    const b = body<{ email: string; role: Role }>(ctx);
    const e = email(b.email);
    const { invitation, token } = await d.orm.em
      .fork()
      .transactional((tx) =>
        createInvitation(tx, { organizationId: s.member.organizationId, email: e, role: b.role, actor: { memberId: s.member.id, email: s.member.email }, address: ctx.ip || null }),
      );
    ctx.status = 201;
    ctx.body = {
      data: {
        id: invitation.id,
        email: invitation.email,
        role: invitation.role,
        expires_at: invitation.expiresAt.toISOString(),
        invite_url: inviteUrl(d.dashboardUrl ?? `${ownOrigin(ctx)}/dashboard`, token),
      },
    };
  };
}

function showInvite(d: InviteDeps): Middleware {
  return async (ctx) => {
    const token = ctx.params.token!;
    const i = TOKEN.test(token) ? await invitationByToken(d.orm.em.fork(), token) : null;
    if (!i) throw gone();
    ctx.body = { data: { email: i.email, role: i.role, organization: { name: i.organizationName }, expires_at: i.expiresAt.toISOString() } };
  };
}

/** Accepts an invitation: the member, their first session and the audit rows, in one transaction (single use). */
function accept(d: InviteDeps): Middleware {
  return async (ctx) => {
    const token = ctx.params.token!;
    const b = body<{ name: string; password: string }>(ctx);
    const name = b.name.trim();
    if (!name) throw AppError.validation('The name is empty.', [{ field: '/name', issue: 'required', message: 'name must not be blank.' }]);
    if (!TOKEN.test(token) || !(await invitationByToken(d.orm.em.fork(), token))) throw gone();
    const passwordHash = await hashPassword(b.password);
    const out = await d.orm.em.fork().transactional(async (tx) => {
      const i = await useInvitation(tx, token);
      if (!i) throw gone();
      const member = await insertMember(tx, { organizationId: i.organizationId, email: i.email, name, role: i.role, passwordHash });
      if (!member) throw AppError.conflict('The organization already has a member with this email.');
      await recordAudit(tx, {
        organizationId: i.organizationId,
        actor: { memberId: member.id, email: member.email },
        action: 'invite.accepted',
        target: i.id,
        address: ctx.ip || null,
      });
      return { member, session: await beginSession(tx, ctx, member) };
    });
    out.session.setCookie();
    ctx.status = 201;
    ctx.body = { data: { member: memberJson(out.member), csrf_token: out.session.csrfToken } };
  };
}

export function inviteRoutes(r: Router, d: InviteDeps): void {
  const inviteBody = jsonBody({ type: 'object', required: ['email', 'role'], properties: { email: emailSchema, role: { type: 'string', enum: [...ROLES] } } });
  on(r, 'POST', '/invites', signedIn(d.resolve), allow('owner'), inviteBody, invite(d));
  on(r, 'GET', '/invites/:token', noBody, showInvite(d));
  const acceptBody = jsonBody({
    type: 'object',
    required: ['name', 'password'],
    properties: { name: { type: 'string', minLength: 1, maxLength: NAME_MAX }, password: newPasswordSchema },
  });
  on(r, 'POST', '/invites/:token/accept', sameOrigin, acceptBody, accept(d));
}
