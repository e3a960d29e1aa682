import { useState } from 'preact/hooks';
import { api } from '../api/client';
import type { SessionInfo } from '../api/types';
import { ErrorNote, Field, Notice, PasswordField } from '../components/ui';
import { useAction } from '../hooks';
import { passkeysSupported, signInWithPasskey } from '../passkey';
import { useSession } from '../session';

/** Sign in with email and password, or with a passkey (docs/dashboard.md: `POST /session`, `/session/passkey`). */
export function SignInPage({ reason }: { reason?: string }) {
  const { signedIn } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const { data } = await api.post<{ data: SessionInfo }>('/session', { email, password }, { quiet401: true });
      signedIn(data);
    });
  };
  const passkey = () => void action.run(async () => signedIn(await signInWithPasskey()));
  return (
    <main id="main" class="auth">
      <h1>Sign in to the dashboard</h1>
      {reason ? <Notice>{reason}</Notice> : null}
      <form onSubmit={submit} aria-describedby={action.error ? 'sign-in-error' : undefined}>
        <Field label="Email" id="email" type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <PasswordField label="Password" id="password" name="password" kind="current" value={password} onValue={setPassword} />
        <div id="sign-in-error">
          <ErrorNote error={action.error} />
        </div>
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {passkeysSupported() ? (
        <p class="alt-sign-in">
          <button type="button" class="secondary" disabled={action.busy} onClick={passkey}>
            Sign in with a passkey
          </button>
        </p>
      ) : null}
      <p class="hint">No account? Ask an owner of your organization for an invitation.</p>
    </main>
  );
}
