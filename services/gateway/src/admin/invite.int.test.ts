import { migrate } from '@acct/kit';
import { type TestDatabase, freshDatabase, runAdminCli } from '@acct/testing';
import { openGatewayOrm } from '../db';
import { invitationByToken } from '../dashboard/invitations';
import { insertMember } from '../dashboard/members';

/** `npm run admin -- invite` and dev-key's owner invitation, as their own processes on a real database. */
describe('admin CLI: dashboard invitations', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await freshDatabase('acct_gw_invite');
    env = { DATABASE_URL: db.url, STACK_DATA_DIR: '/nonexistent-acct-stack' };
  });
  afterAll(() => db.drop());

  it('prints { invite_url } under DASHBOARD_URL (default localhost:8080), audited as admin-cli; refuses bad options', async () => {
    const boot = JSON.parse((await runAdminCli(env, 'bootstrap', '--json')).stdout) as { organization_id: string };
    const org = boot.organization_id;
    const plain = await runAdminCli(env, 'invite', '--org', org, '--email', 'ann@example.com', '--role', 'developer', '--json');
    expect(plain.code).toBe(0);
    expect(Object.keys(JSON.parse(plain.stdout))).toEqual(['invite_url']);
    expect(JSON.parse(plain.stdout).invite_url).toMatch(/^http:\/\/localhost:8080\/dashboard\/invite\/[A-Za-z0-9_-]{43}$/);
    const custom = await runAdminCli(
      { ...env, DASHBOARD_URL: 'https://app.example.com/dashboard' },
      'invite',
      '--org',
      org,
      '--email',
      'bo@example.com',
      '--role',
      'viewer',
      '--json',
    );
    const url = JSON.parse(custom.stdout).invite_url as string;
    expect(url).toMatch(/^https:\/\/app\.example\.com\/dashboard\/invite\//);
    const orm = await openGatewayOrm(db.url, 2);
    try {
      expect(await invitationByToken(orm.em.fork(), url.slice(url.lastIndexOf('/') + 1))).toMatchObject({ email: 'bo@example.com', role: 'viewer', organizationId: org });
      const audit: Array<{ actor_email: string; actor_member_id: string | null; target: string }> = await orm.em
        .fork()
        .execute(`SELECT actor_email, actor_member_id, target FROM audit_log WHERE action = 'invite.created' ORDER BY seq`, [], 'all');
      expect(audit).toEqual([
        { actor_email: 'admin-cli', actor_member_id: null, target: 'ann@example.com' },
        { actor_email: 'admin-cli', actor_member_id: null, target: 'bo@example.com' },
      ]);
    } finally {
      await orm.close(true);
    }
    for (const args of [
      ['--org', org, '--email', 'x@example.com', '--role', 'king'],
      ['--org', org, '--email', 'not an email', '--role', 'owner'],
      ['--org', 'nope', '--email', 'x@example.com', '--role', 'owner'],
      ['--org', '00000000-0000-4000-8000-000000000000', '--email', 'x@example.com', '--role', 'owner'],
    ]) {
      const r = await runAdminCli(env, 'invite', ...args, '--json');
      expect([args.join(' '), r.code]).toEqual([args.join(' '), 1]);
      expect(r.stderr).toMatch(/^error: /m);
    }
  });

  it('dev-key adds a fresh owner invitation while the development organization has no member, then says one exists', async () => {
    const first = JSON.parse((await runAdminCli(env, 'dev-key', '--json')).stdout);
    expect(first).toMatchObject({ test_key: expect.any(String), member_exists: false, invite_url: expect.stringMatching(/\/dashboard\/invite\//) });
    const second = JSON.parse((await runAdminCli(env, 'dev-key', '--json')).stdout);
    expect(second.invite_url).not.toBe(first.invite_url);
    const orm = await openGatewayOrm(db.url, 2);
    try {
      await migrate(orm);
      await insertMember(orm.em.fork(), { organizationId: first.organization_id, email: 'owner@example.com', name: 'Owner', role: 'owner', passwordHash: 'x' });
    } finally {
      await orm.close(true);
    }
    const third = JSON.parse((await runAdminCli(env, 'dev-key', '--json')).stdout);
    expect(third).toMatchObject({ organization_id: first.organization_id, invite_url: null, member_exists: true });
  });
});
