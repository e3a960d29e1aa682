import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../api/client';
import type { InviteInfo, SessionInfo } from '../api/types';
import { ErrorNote, Field, Loading, PasswordField } from '../components/ui';
import { formatDateTime } from '../format';
import { useAction, useLoad } from '../hooks';
import { href } from '../paths';
import { useSession } from '../session';

/** `/dashboard/invite/<token>`: what the invitation is for, then a name and a password to accept it. */
export function InvitePage({ token }: { token: string }) {
  const invite = useLoad(() => api.get<{ data: InviteInfo }>(`/invites/${encodeURIComponent(token)}`), [token]);
  return (
    <main id="main" class="auth">
      <h1>Accept your invitation</h1>
      {invite.loading ? <Loading what="the invitation" /> : null}
      {invite.error ? (
        <>
          <ErrorNote error={invite.error} />
          <p>The invitation may have been used already or expired (they last 72 hours). Ask for a new one.</p>
        </>
      ) : null}
      {invite.data ? <AcceptForm token={token} info={invite.data.data} /> : null}
    </main>
  );
}

function AcceptForm({ token, info }: { token: string; info: InviteInfo }) {
  const { signedIn } = useSession();
  const { route } = useLocation();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const { data } = await api.post<{ data: SessionInfo }>(`/invites/${encodeURIComponent(token)}/accept`, { name, password }, { quiet401: true });
      signedIn(data);
      route(href('/'), true);
    });
  };
  return (
    <>
      <p>
        You are invited to <strong>{info.organization.name}</strong> as <strong>{info.role}</strong> with the email <strong>{info.email}</strong>. The invitation expires{' '}
        {formatDateTime(info.expires_at)}.
      </p>
      <form onSubmit={submit}>
        <Field label="Your name" id="name" autocomplete="name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <PasswordField label="Choose a password" id="new-password" kind="new" value={password} onValue={setPassword} />
        <ErrorNote error={action.error} />
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Joining…' : 'Join the organization'}
        </button>
      </form>
    </>
  );
}
