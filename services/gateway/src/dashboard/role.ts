import { AppError, type RouteDef } from '@acct/contracts';
import type { Middleware } from '../middlewares/state';
import { ROLES, type Role } from './types';

/** What the role rules read of a route: its public path (under /api/v1), method and module. */
export type RouteFacts = Pick<RouteDef, 'method' | 'path' | 'module'>;

const under = (path: string, prefix: string): boolean => path === prefix || path.startsWith(`${prefix}/`);

/** Webhook endpoints, their deliveries and secrets: where the data goes, so reads too are for owners and developers. */
export const isWebhookEndpointRoute = (r: RouteFacts): boolean => under(r.path, '/api/v1/webhook-endpoints');

/**
 * The writes an accountant may make beside reading: the books' lock date, and documents (upload,
 * link) and their shares (create, revoke).
 */
export const isAccountantWrite = (r: RouteFacts): boolean =>
  (r.method === 'PUT' && r.path === '/api/v1/settings/books-lock') || r.module === 'documents' || under(r.path, '/api/v1/document-shares');

const article = (role: Role): string => (role === 'owner' || role === 'accountant' ? 'an' : 'a');

/**
 * Why a member of `role` may not call `route` through /dashboard/api/v1 (docs/dashboard.md "Roles"),
 * or null when they may: owners and developers call everything; accountants read (GET), set the
 * lock date and work with documents; viewers read; webhook endpoints are for owners and developers.
 */
export function refusal(role: Role, route: RouteFacts): string | null {
  if (role === 'owner' || role === 'developer') return null;
  const what = `${route.method} ${route.path}`;
  if (isWebhookEndpointRoute(route)) return `Webhook endpoints are for owners and developers: ${what} is not allowed for ${article(role)} ${role}.`;
  if (route.method === 'GET') return null;
  if (role === 'accountant') {
    if (isAccountantWrite(route)) return null;
    return `An accountant may read, set the books' lock date and work with documents: ${what} is not allowed.`;
  }
  return `A viewer may only read: ${what} is not allowed.`;
}

/** May a member of `role` call `route`? */
export const allows = (role: Role, route: RouteFacts): boolean => refusal(role, route) === null;

/**
 * 403 forbidden when the signed-in member's role may not call the route; the decision per role is
 * made once, when the route is mounted.
 */
export function roleGuard(route: RouteFacts): Middleware {
  const why = Object.fromEntries(ROLES.map((role) => [role, refusal(role, route)])) as Record<Role, string | null>;
  return async (ctx, next) => {
    const session = ctx.state.dashboard;
    if (!session) throw new AppError('unauthorized', 'Sign in to the dashboard first.');
    // An unknown role (none of ROLES) is refused too: undefined is not null.
    const refused = why[session.member.role];
    if (refused !== null) throw new AppError('forbidden', refused ?? `The role ${session.member.role} may not call the API.`);
    await next();
  };
}
