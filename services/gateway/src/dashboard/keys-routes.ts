import { AppError, type Environment, limits } from '@acct/contracts';
import { type Orm, listQuery, pageInMemory } from '@acct/kit';
import { ConnectedAppSchema, type ConnectedApp } from '../entities';
import type { Ctx } from '../middlewares/state';
import { type KeyChange, createApiKey, keyView, listApiKeys, revokeApiKey, rollApiKey } from './keys';
import type { Member, Role } from './types';

/**
 * The key routes of the dashboard (docs/dashboard.md, API-DECISIONS §13 "Keys"), mounted by the
 * /dashboard/api router after the session middleware:
 *   GET    /dashboard/api/apps/{app_id}/keys             listKeys
 *   POST   /dashboard/api/apps/{app_id}/keys             createKey
 *   POST   /dashboard/api/apps/{app_id}/keys/{id}/roll   rollKey
 *   DELETE /dashboard/api/apps/{app_id}/keys/{id}        revokeKey
 * Each acts on the app's keys of the `Dashboard-Environment` (test | live, default test). The full key
 * is in the answers of create and roll only, and never logged.
 */

/** Who may manage keys (the router's `allow` checks the same; these handlers check again). */
export const KEY_ROLES: readonly Role[] = ['owner', 'developer'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type KeyHandler = (ctx: Ctx) => Promise<void>;

/** The signed-in member, if their role may manage keys: 401 without a session, 403 for another role. */
function keyManager(ctx: Ctx): Member {
  const member = ctx.state.dashboard?.member;
  if (!member) throw new AppError('unauthorized', 'Sign in to the dashboard first.');
  if (!KEY_ROLES.includes(member.role))
    throw new AppError('forbidden', `Keys are managed by owners and developers; this member is ${member.role === 'accountant' ? 'an' : 'a'} ${member.role}.`);
  return member;
}

/** `Dashboard-Environment`: test (the default) or live; anything else 400. */
export function dashboardEnvironment(ctx: Ctx): Environment {
  const v = ctx.get('dashboard-environment');
  if (v === '' || v === 'test') return 'test';
  if (v === 'live') return 'live';
  throw AppError.validation('The Dashboard-Environment header must be test or live.', [
    { field: 'Dashboard-Environment', issue: 'invalid_value', message: 'Send test or live (or leave it out for test).' },
  ]);
}

/** A body that must be a JSON object with only the given members (absent counts as `{}`). */
function bodyObject(ctx: Ctx, allowed: readonly string[]): Record<string, unknown> {
  const body = (ctx.request as { body?: unknown }).body ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw AppError.validation('The body must be a JSON object.', [{ field: '/', issue: 'type', message: 'Send a JSON object.' }]);
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length) {
    throw AppError.validation(
      'The body has members this operation does not take.',
      unknown.map((k) => ({ field: `/${k}`, issue: 'unknown_field', message: `${k} is not a field of this operation.` })),
    );
  }
  return body as Record<string, unknown>;
}

/** The page of a dashboard list: `limit` 1–100 (25), and `starting_after` or `ending_before`. */
function pageQuery(ctx: Ctx) {
  const q = ctx.query;
  const one = (name: string): string | undefined => {
    const v = q[name];
    if (Array.isArray(v)) throw AppError.validation(`${name} is given more than once.`, [{ field: name, issue: 'repeated', message: `Give ${name} once.` }]);
    return v;
  };
  const given = one('limit');
  const limit = given === undefined ? limits.page_limit_default : /^\d{1,3}$/.test(given) ? Number(given) : NaN;
  if (!(limit >= 1 && limit <= limits.page_limit_max)) {
    throw AppError.validation(`limit must be a whole number from 1 to ${limits.page_limit_max}.`, [
      { field: 'limit', issue: 'out_of_range', message: `Give 1 to ${limits.page_limit_max}.` },
    ]);
  }
  return listQuery({ limit, starting_after: one('starting_after'), ending_before: one('ending_before') });
}

export function keyHandlers({ orm }: { orm: Pick<Orm, 'em'> }): Record<'listKeys' | 'createKey' | 'rollKey' | 'revokeKey', KeyHandler> {
  /** The app of the path, if it is one of the member's organization (404 otherwise, whoever's it is). */
  const appOf = async (ctx: Ctx, member: Member): Promise<ConnectedApp> => {
    const id = ctx.params.app_id ?? '';
    const app = UUID.test(id) ? await orm.em.fork().findOne(ConnectedAppSchema, { id: id.toLowerCase() }) : null;
    if (!app || app.organizationId !== member.organizationId) throw AppError.notFound('Connected app', id);
    return app;
  };
  /** The member, the app and the environment a key route acts in. */
  const scope = async (ctx: Ctx): Promise<{ app: ConnectedApp; environment: Environment; change: KeyChange }> => {
    const member = keyManager(ctx);
    const environment = dashboardEnvironment(ctx);
    const app = await appOf(ctx, member);
    return { app, environment, change: { actor: { memberId: member.id, email: member.email }, address: ctx.ip || null, connectedAppId: app.id, environment } };
  };

  return {
    async listKeys(ctx) {
      const { app, environment } = await scope(ctx);
      const q = pageQuery(ctx);
      const all = await listApiKeys(orm.em.fork(), app.id, environment);
      const { items, pagination } = pageInMemory(all, q, limits.list_page_bytes_max);
      ctx.body = { data: items, pagination };
    },

    async createKey(ctx) {
      const { app, environment, change } = await scope(ctx);
      bodyObject(ctx, []);
      const made = await createApiKey(orm.em.fork(), app.id, environment, change);
      ctx.status = 201;
      ctx.body = { data: { ...keyView(made.row), key: made.key } };
    },

    async rollKey(ctx) {
      const { change } = await scope(ctx);
      const body = bodyObject(ctx, ['expire_current_in_hours']);
      const rolled = await rollApiKey(orm.em.fork(), ctx.params.id ?? '', body.expire_current_in_hours as number, change);
      ctx.status = 201;
      ctx.body = { data: { ...keyView(rolled.row), key: rolled.key } };
    },

    async revokeKey(ctx) {
      const { change } = await scope(ctx);
      const { row } = await revokeApiKey(orm.em.fork(), ctx.params.id ?? '', change);
      ctx.body = { data: keyView(row) };
    },
  };
}
