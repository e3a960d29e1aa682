import type Router from '@koa/router';
import { AppError, UUID, limits } from '@acct/contracts';
import { cursorPage, unknownCursor } from '@acct/kit';
import { createConnectedApp } from '../admin/admin';
import { ConnectedAppSchema } from '../entities';
import type { Ctx, Middleware } from '../middlewares/state';
import { auditEntryExists, auditPage, recordAudit } from './audit-log';
import { body, jsonBody, listParams, noBody, sendList } from './http';
import { deleteMember, listMembers, lockOwners, memberById, memberJson, setRole } from './members';
import { type RouteDeps, on } from './routes-session';
import { allow, setSessionCookie, signedIn } from './sessions';
import { ROLES, type Role } from './types';

/** Members, connected apps and the audit log of the signed-in member's organization (docs/dashboard.md). */

const APP_NAME_MAX = 200;

const actorOf = (ctx: Ctx) => ({ memberId: ctx.state.dashboard!.member.id, email: ctx.state.dashboard!.member.email });
const orgOf = (ctx: Ctx): string => ctx.state.dashboard!.member.organizationId;

/** The member of the path, in the signed-in member's organization, locked for the change (404 otherwise). */
async function target(tx: Parameters<typeof memberById>[0], ctx: Ctx) {
  const id = ctx.params.id!;
  const m = UUID.test(id) ? await memberById(tx, orgOf(ctx), id.toLowerCase(), true) : null;
  if (!m) throw AppError.notFound('Member', id);
  return m;
}

const lastOwner = () => AppError.conflict('The organization must keep at least one owner.');

function changeRole(d: RouteDeps): Middleware {
  return async (ctx) => {
    const { role } = body<{ role: Role }>(ctx);
    const member = await d.orm.em.fork().transactional(async (tx) => {
      const owners = await lockOwners(tx, orgOf(ctx));
      const m = await target(tx, ctx);
      if (m.role === role) return m;
      if (m.role === 'owner' && owners.length <= 1) throw lastOwner();
      const changed = await setRole(tx, m.id, role);
      await recordAudit(tx, { organizationId: m.organizationId, actor: actorOf(ctx), action: 'member.role_changed', target: m.id, address: ctx.ip || null });
      return changed;
    });
    ctx.body = { data: memberJson(member) };
  };
}

/** Owners remove anyone, members themselves; never the last owner. */
function removeMember(d: RouteDeps): Middleware {
  return async (ctx) => {
    const me = ctx.state.dashboard!.member;
    const self = await d.orm.em.fork().transactional(async (tx) => {
      const owners = await lockOwners(tx, orgOf(ctx));
      const m = await target(tx, ctx);
      if (me.role !== 'owner' && m.id !== me.id) throw new AppError('forbidden', 'Only an owner removes other members.');
      if (m.role === 'owner' && owners.length <= 1) throw lastOwner();
      await deleteMember(tx, m.id);
      await recordAudit(tx, { organizationId: m.organizationId, actor: actorOf(ctx), action: 'member.removed', target: m.id, address: ctx.ip || null });
      return m.id === me.id;
    });
    if (self) setSessionCookie(ctx, null);
    ctx.status = 204;
  };
}

const appJson = (a: { id: string; name: string; status: string; createdAt: Date }) => ({
  id: a.id,
  name: a.name,
  status: a.status,
  created_at: new Date(a.createdAt).toISOString(),
});

function listApps(d: RouteDeps): Middleware {
  return async (ctx) => {
    const apps = await d.orm.em.fork().find(ConnectedAppSchema, { organizationId: orgOf(ctx) }, { orderBy: { createdAt: 'desc', id: 'desc' } });
    sendList(ctx, apps.map(appJson));
  };
}

function createApp(d: RouteDeps): Middleware {
  return async (ctx) => {
    const name = body<{ name: string }>(ctx).name.trim();
    if (!name) throw AppError.validation('The name is empty.', [{ field: '/name', issue: 'required', message: 'name must not be blank.' }]);
    const app = await d.orm.em.fork().transactional(async (tx) => {
      const a = await createConnectedApp(tx, orgOf(ctx), name);
      await recordAudit(tx, { organizationId: a.organizationId, actor: actorOf(ctx), action: 'app.created', target: a.id, address: ctx.ip || null });
      return a;
    });
    ctx.status = 201;
    ctx.body = { data: appJson(app) };
  };
}

function auditLog(d: RouteDeps): Middleware {
  return async (ctx) => {
    const q = listParams(ctx);
    const em = d.orm.em.fork();
    if (q.cursor && !(await auditEntryExists(em, orgOf(ctx), q.cursor.id))) throw unknownCursor(q.cursor);
    const p = cursorPage(await auditPage(em, orgOf(ctx), q.limit, q.cursor), q, limits.list_page_bytes_max);
    ctx.body = { data: p.items, pagination: p.pagination };
  };
}

export function memberRoutes(r: Router, d: RouteDeps): void {
  const auth = signedIn(d.resolve);
  const owner = allow('owner');
  on(r, 'GET', '/members', noBody, auth, owner, async (ctx) => sendList(ctx, (await listMembers(d.orm.em.fork(), orgOf(ctx))).map(memberJson)));
  on(r, 'PATCH', '/members/:id', auth, owner, jsonBody({ type: 'object', required: ['role'], properties: { role: { type: 'string', enum: [...ROLES] } } }), changeRole(d));
  on(r, 'DELETE', '/members/:id', noBody, auth, removeMember(d));
  on(r, 'GET', '/apps', noBody, auth, listApps(d));
  on(
    r,
    'POST',
    '/apps',
    auth,
    owner,
    jsonBody({ type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: APP_NAME_MAX } } }),
    createApp(d),
  );
  on(r, 'GET', '/audit-log', noBody, auth, owner, auditLog(d));
}
