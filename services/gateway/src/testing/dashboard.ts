/** Stand-ins for the dashboard's session middleware and stores, for tests only. */
import { randomUUID } from 'node:crypto';
import { AppError, type ModuleName } from '@acct/contracts';
import type { AuditEntry } from '../dashboard/audit-log';
import type { OrgScope, ScopeResolver } from '../dashboard/scopes';
import type { Member, Role } from '../dashboard/types';
import type { DashboardV1Deps } from '../dashboard/v1';
import type { Middleware } from '../middlewares/state';

/** The header the test session middleware reads: the id of a member it knows. */
export const TEST_MEMBER_HEADER = 'x-test-member';

export function member(organizationId: string, role: Role, over: Partial<Member> = {}): Member {
  const id = randomUUID();
  return { id, organizationId, email: `${role}-${id.slice(0, 8)}@example.com`, name: role, role, createdAt: new Date(0), ...over };
}

/**
 * Stands in for sessions.ts `signedIn`: the member whose id header x-test-member names is signed in
 * (401 unauthorized without it, as without a session cookie).
 */
export function testSignedIn(members: readonly Member[]): Middleware {
  return async (ctx, next) => {
    const m = members.find((x) => x.id === ctx.get(TEST_MEMBER_HEADER));
    if (!m) throw new AppError('unauthorized', 'Sign in to the dashboard first.');
    ctx.state.dashboard = { member: m, idHash: 'h'.repeat(64), csrfToken: 'csrf' };
    await next();
  };
}

/** Organizations by id, with the lookups counted. */
export function fakeScopes(byOrg: Record<string, OrgScope>): ScopeResolver & { lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    org: async (id) => {
      lookups.push(id);
      return byOrg[id] ?? null;
    },
  };
}

export const orgScope = (apps: OrgScope['apps'], modules: ModuleName[] = ['customers', 'webhooks', 'embedded_settings', 'documents']): OrgScope => ({
  enabledModules: new Set(modules),
  apps,
});

/** The dashboard deps of a test: the given members signed in by header, audit rows kept in `audits`. */
export function fakeDashboard(members: readonly Member[], scopes: ScopeResolver): DashboardV1Deps & { audits: AuditEntry[] } {
  const audits: AuditEntry[] = [];
  return {
    audits,
    signedIn: testSignedIn(members),
    scopes,
    audit: async (e) => {
      audits.push(e);
    },
  };
}
