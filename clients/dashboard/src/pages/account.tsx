import { useState } from 'preact/hooks';
import { api, type ListAnswer } from '../api/client';
import type { Passkey } from '../api/types';
import { ConfirmButton, ErrorNote, Field, Notice, PageTitle, PasswordField } from '../components/ui';
import { formatDateTime } from '../format';
import { useAction, useLoad } from '../hooks';
import { passkeysSupported, registerPasskey } from '../passkey';
import { useSession, useSignedIn } from '../session';

/** The signed-in member's own settings: password, passkeys, sessions. */
export function AccountPage() {
  const { member } = useSignedIn();
  return (
    <>
      <PageTitle>Your account</PageTitle>
      <dl class="facts">
        <dt>Name</dt>
        <dd>{member.name}</dd>
        <dt>Email</dt>
        <dd>{member.email}</dd>
        <dt>Role</dt>
        <dd>{member.role}</dd>
      </dl>
      <PasswordForm />
      <Passkeys />
      <Sessions />
    </>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    setDone(false);
    void action.run(async () => {
      await api.put('/password', { current_password: current, new_password: next });
      setCurrent('');
      setNext('');
      setDone(true);
    });
  };
  return (
    <section aria-labelledby="password-title">
      <h2 id="password-title">Change your password</h2>
      <form class="panel" onSubmit={submit}>
        <PasswordField label="Current password" id="current-password" kind="current" value={current} onValue={setCurrent} />
        <PasswordField label="New password" id="new-password" kind="new" note="Your other sessions end when it changes." value={next} onValue={setNext} />
        <ErrorNote error={action.error} />
        {done ? <Notice>Password changed. Your other sessions have ended.</Notice> : null}
        <button type="submit" disabled={action.busy}>
          Change the password
        </button>
      </form>
    </section>
  );
}

function Passkeys() {
  const list = useLoad(() => api.get<ListAnswer<Passkey>>('/passkeys', { limit: 100 }), []);
  const [name, setName] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();
  const register = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const p = await registerPasskey(name.trim() || undefined);
      setDone(`Passkey ${p.name ?? ''} registered.`);
      setName('');
      list.reload();
    });
  };
  const remove = (p: Passkey) =>
    action.run(async () => {
      await api.del(`/passkeys/${encodeURIComponent(p.id)}`);
      setDone('Passkey removed.');
      list.reload();
    });
  const keys = list.data?.data ?? [];
  return (
    <section aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <p>A passkey signs you in with this device's screen lock or a security key, without a password.</p>
      <ErrorNote error={list.error} />
      {keys.length === 0 && !list.loading ? <p class="empty">No passkey yet.</p> : null}
      <ul class="plain-list">
        {keys.map((p) => (
          <li key={p.id}>
            <strong>{p.name ?? 'Passkey'}</strong> — added {formatDateTime(p.created_at)}, last used {formatDateTime(p.last_used_at)}{' '}
            <ConfirmButton label="Remove" confirmLabel={`Remove passkey ${p.name ?? ''}`.trim()} onConfirm={() => remove(p)} />
          </li>
        ))}
      </ul>
      {passkeysSupported() ? (
        <form class="panel" onSubmit={register}>
          <Field
            label="Name of the new passkey (optional)"
            id="passkey-name"
            maxLength={100}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            hint="For example: work laptop."
          />
          <button type="submit" disabled={action.busy}>
            Add a passkey
          </button>
        </form>
      ) : (
        <p class="hint">This browser does not support passkeys.</p>
      )}
      <ErrorNote error={action.error} />
      {done ? <Notice>{done}</Notice> : null}
    </section>
  );
}

function Sessions() {
  const { signOut } = useSession();
  const action = useAction();
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <div class="buttons">
        <button type="button" class="secondary" disabled={action.busy} onClick={() => void action.run(() => signOut(false))}>
          Sign out
        </button>
        <ConfirmButton label="Sign out everywhere" confirmLabel="End every session, this one too" onConfirm={() => action.run(() => signOut(true))} />
      </div>
      <ErrorNote error={action.error} />
    </section>
  );
}
