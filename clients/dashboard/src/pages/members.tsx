import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client';
import type { Invite, Member } from '../api/types';
import { List, type Column } from '../components/list';
import { ConfirmButton, ErrorNote, Field, Notice, PageTitle, SecretOnce } from '../components/ui';
import { formatDateTime } from '../format';
import { useAction } from '../hooks';
import { ROLES, type Role } from '../roles';
import { useSession, useSignedIn } from '../session';

const ROLE_HELP: Record<Role, string> = {
  owner: 'everything, members included',
  developer: 'keys, webhooks and every API operation',
  accountant: 'reads, reports, documents and the lock date',
  viewer: 'reads only',
};

/** Members of the organization (owners): change a role, remove, invite (the URL shown once). */
export function MembersPage() {
  const me = useSignedIn().member;
  const { reload: reloadSession } = useSession();
  const [version, setVersion] = useState(0);
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();
  const changeRole = (m: Member, role: Role, reload: () => void) =>
    void action.run(async () => {
      await api.patch(`/members/${encodeURIComponent(m.id)}`, { role });
      setDone(`${m.email} is now ${role}.`);
      reload();
      // One's own role changed: what the pages offer changes with it.
      if (m.id === me.id) await reloadSession();
    });
  const remove = (m: Member, reload: () => void) =>
    action.run(async () => {
      await api.del(`/members/${encodeURIComponent(m.id)}`);
      setDone(`${m.email} was removed.`);
      reload();
    });
  const columns: Column<Member>[] = [
    { label: 'Name', value: (m) => m.name },
    { label: 'Email', value: (m) => m.email },
    {
      label: 'Role',
      value: (m) => m.role,
      render: (m) => <RoleCell member={m} busy={action.busy} onChange={(role) => changeRole(m, role, () => setVersion((v) => v + 1))} />,
    },
    { label: 'Joined', value: (m) => m.created_at, render: (m) => formatDateTime(m.created_at) },
  ];
  return (
    <>
      <PageTitle>Members</PageTitle>
      <InviteForm />
      {done ? <Notice>{done}</Notice> : null}
      <ErrorNote error={action.error} />
      <h2>People in the organization</h2>
      <List<Member>
        title="Members"
        path="/members"
        columns={columns}
        createdFilter={false}
        reloadKey={version}
        actions={(m, reload) => <ConfirmButton label={m.id === me.id ? 'Leave' : 'Remove'} confirmLabel={`Remove ${m.email} now`} onConfirm={() => remove(m, reload)} />}
      />
    </>
  );
}

/** The role as a select and a button: choosing with the arrow keys changes nothing until the button is pressed. */
function RoleCell({ member, busy, onChange }: { member: Member; busy: boolean; onChange: (role: Role) => void }) {
  const [role, setRole] = useState<Role>(member.role);
  useEffect(() => setRole(member.role), [member.role]);
  return (
    <span class="role-cell">
      <label class="visually-hidden" for={`role-${member.id}`}>
        Role of {member.email}
      </label>
      <select id={`role-${member.id}`} value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
        {ROLES.map((r) => (
          <option value={r} key={r}>
            {r}
          </option>
        ))}
      </select>
      {role !== member.role ? (
        <button type="button" class="secondary" disabled={busy} onClick={() => onChange(role)}>
          Change to {role}
        </button>
      ) : null}
    </span>
  );
}

function InviteForm() {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [invite, setInvite] = useState<Invite | null>(null);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const { data } = await api.post<{ data: Invite }>('/invites', { email, role });
      setInvite(data);
      setEmail('');
    });
  };
  return (
    <section aria-labelledby="invite-title">
      <h2 id="invite-title">Invite a member</h2>
      {invite ? (
        <SecretOnce
          label={`Invitation for ${invite.email} (${invite.role}), valid until ${formatDateTime(invite.expires_at)}`}
          value={invite.invite_url}
          onDone={() => setInvite(null)}
        />
      ) : null}
      <form class="panel" onSubmit={submit}>
        <p class="hint">No e-mail is sent: give the invitation link to the person yourself. It works once and expires after 72 hours.</p>
        <Field label="Email" id="invite-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <div class="field">
          <label for="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)} aria-describedby="invite-role-hint">
            {ROLES.map((r) => (
              <option value={r} key={r}>
                {r}
              </option>
            ))}
          </select>
          <small id="invite-role-hint" class="hint">
            {role}: {ROLE_HELP[role]}.
          </small>
        </div>
        <ErrorNote error={action.error} />
        <button type="submit" disabled={action.busy}>
          Create the invitation
        </button>
      </form>
    </section>
  );
}
