import { ROUTES } from '@acct/contracts';
import { member } from '../testing/dashboard';
import { appOf, json, serve } from '../testing/fakes';
import { allows, refusal, roleGuard } from './role';
import { ROLES, type Role } from './types';
import { reachableFromDashboard } from './v1';

/**
 * docs/dashboard.md "Roles", written here apart from role.ts: the writes an accountant may make
 * (the lock date, documents and their shares), each by method and path.
 */
const ACCOUNTANT_WRITES = [
  'PUT /api/v1/settings/books-lock',
  'POST /api/v1/documents',
  'POST /api/v1/documents/{id}/link',
  'POST /api/v1/document-shares',
  'DELETE /api/v1/document-shares/{id}',
];

const isWebhookEndpoint = (path: string) => path === '/api/v1/webhook-endpoints' || path.startsWith('/api/v1/webhook-endpoints/');

/** What the doc says a role may call, from the route's method and path alone. */
function expected(role: Role, method: string, path: string): boolean {
  if (role === 'owner' || role === 'developer') return true;
  if (isWebhookEndpoint(path)) return false;
  if (method === 'GET') return true;
  return role === 'accountant' && ACCOUNTANT_WRITES.includes(`${method} ${path}`);
}

const reachable = ROUTES.filter(reachableFromDashboard);
const table = reachable.flatMap((r) => ROLES.map((role) => [role, r.method, r.path] as const));

describe('the role table over every route of ROUTES', () => {
  it('reaches every keyed route under /api/v1, and only those', () => {
    const left = ROUTES.filter((r) => !reachableFromDashboard(r));
    expect(left.filter((r) => r.path.startsWith('/api/v1/'))).toEqual([]);
    expect(left.every((r) => !r.auth)).toBe(true);
    expect(reachable.length).toBeGreaterThan(80);
    expect(table.length).toBe(reachable.length * ROLES.length);
  });

  it('names routes that exist for every write an accountant may make', () => {
    const routes = new Set(ROUTES.map((r) => `${r.method} ${r.path}`));
    expect(ACCOUNTANT_WRITES.filter((w) => !routes.has(w))).toEqual([]);
  });

  it.each(table)('%s: %s %s', (role, method, path) => {
    const route = reachable.find((r) => r.method === method && r.path === path)!;
    expect(allows(role, route)).toBe(expected(role, method, path));
    const why = refusal(role, route);
    if (why) expect(why).toContain(`${method} ${path}`);
  });

  it('gives each role the expected share of the routes', () => {
    const count = (role: Role) => reachable.filter((r) => allows(role, r)).length;
    const reads = reachable.filter((r) => r.method === 'GET' && !isWebhookEndpoint(r.path)).length;
    expect(count('owner')).toBe(reachable.length);
    expect(count('developer')).toBe(reachable.length);
    expect(count('viewer')).toBe(reads);
    expect(count('accountant')).toBe(reads + ACCOUNTANT_WRITES.length);
    expect(reachable.filter((r) => isWebhookEndpoint(r.path) && r.method === 'GET').length).toBeGreaterThan(0);
  });
});

describe('roleGuard', () => {
  const post = ROUTES.find((r) => r.operationId === 'createCustomer')!;
  const org = '00000000-0000-4000-8000-000000000001';
  const guarded = (role: string | undefined) =>
    serve(
      appOf(
        async (ctx, next) => {
          if (role) ctx.state.dashboard = { member: member(org, role as Role), idHash: 'h', csrfToken: 'c' };
          await next();
        },
        roleGuard(post),
        async (ctx) => {
          ctx.body = { ok: true };
        },
      ),
    );

  it.each([
    ['developer', 200],
    ['viewer', 403],
    ['accountant', 403],
    ['auditor', 403], // no such role: refused, never let through
  ])('lets a %s call POST /api/v1/customers: %i', async (role, status) => {
    const s = await guarded(role);
    const r = await s.call('/', { method: 'POST' });
    expect(r.status).toBe(status);
    if (status === 403) expect((await json(r)).error).toMatchObject({ code: 'forbidden', request_id: 'req-test' });
    await s.close();
  });

  it('answers 401 without a signed-in member', async () => {
    const s = await guarded(undefined);
    const r = await s.call('/');
    expect(r.status).toBe(401);
    await s.close();
  });
});
