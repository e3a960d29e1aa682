import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { useAction } from '../hooks';
import { href } from '../paths';
import { navFor } from '../roles';
import { useSession, useSignedIn } from '../session';
import { ScopeSwitcher, useScope } from './scope-switcher';
import { ErrorNote } from './ui';

/**
 * Every signed-in page: a skip link, the banner (organization, scope, account), the navigation
 * (only what the member's role can use) and the main region. A change of scope re-mounts the page,
 * so it reads its data again for the new environment or app.
 */
export function Layout({ children }: { children: ComponentChildren }) {
  const { member, organization } = useSignedIn();
  const scope = useScope();
  return (
    <div class={`shell${scope.environment === 'live' ? ' shell-live' : ''}`}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="banner">
        <a class="brand" href={href('/')}>
          {organization?.name ?? 'Dashboard'}
        </a>
        <ScopeSwitcher />
        <AccountMenu name={member.name || member.email} role={member.role} />
      </header>
      <div class="body">
        <Nav role={member.role} />
        <main id="main" tabIndex={-1} key={`${scope.environment}:${scope.app ?? ''}`}>
          {children}
        </main>
      </div>
    </div>
  );
}

function Nav({ role }: { role: Parameters<typeof navFor>[0] }) {
  const { path } = useLocation();
  const current = (p: string) => (p === '/' ? path === href('/') || path === '/dashboard' : path === href(p) || path.startsWith(`${href(p)}/`));
  return (
    <nav class="side-nav" aria-label="Main">
      <ul>
        {navFor(role).map((item) => (
          <li key={item.path}>
            <a href={href(item.path)} aria-current={current(item.path) ? 'page' : undefined}>
              {item.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function AccountMenu({ name, role }: { name: string; role: string }) {
  const { signOut } = useSession();
  const action = useAction();
  return (
    <div class="account">
      <a href={href('/account')}>
        {name} <span class="role">({role})</span>
      </a>
      <button type="button" class="secondary" disabled={action.busy} onClick={() => void action.run(() => signOut())}>
        Sign out
      </button>
      {action.error ? <ErrorNote error={action.error} /> : null}
    </div>
  );
}
