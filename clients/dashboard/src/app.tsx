import { ErrorBoundary, LocationProvider, Route, Router } from 'preact-iso';
import { Layout } from './components/layout';
import { ErrorNote, Loading } from './components/ui';
import { InvitePage } from './pages/invite';
import { NotFoundPage } from './pages/not-found';
import { SignInPage } from './pages/sign-in';
import { BASE, href } from './paths';
import { can } from './roles';
import { PAGES } from './routes';
import { SessionProvider, useSession } from './session';

/** The application: the router over /dashboard, the session, and the page for the path. */
export function App() {
  return (
    <LocationProvider scope={BASE}>
      <SessionProvider>
        <ErrorBoundary>
          <Router>
            <Route path={`${BASE}/invite/:token`} component={InvitePage} />
            {/* `/dashboard/*` needs a segment after the base: the overview is its own route. */}
            <Route path={BASE} component={SignedInArea} />
            <Route path={`${BASE}/*`} component={SignedInArea} />
            <Route default component={OutsideDashboard} />
          </Router>
        </ErrorBoundary>
      </SessionProvider>
    </LocationProvider>
  );
}

/** Every path but the invitation: the sign-in page until signed in, then the page inside the layout. */
function SignedInArea() {
  const { state } = useSession();
  if (state.status === 'loading')
    return (
      <main id="main" class="centered">
        <Loading what="the dashboard" />
      </main>
    );
  if (state.status === 'error')
    return (
      <main id="main" class="centered">
        <h1>The dashboard could not load</h1>
        <ErrorNote error={state.error} />
      </main>
    );
  if (state.status === 'signed-out') return <SignInPage reason={state.reason} />;
  const role = state.session.member.role;
  return (
    <Layout>
      <Router>
        {[
          ...PAGES.filter((p) => !p.needs || can(role, p.needs)).map((p) => <Route path={p.path} component={p.component} key={p.path} />),
          <Route default component={NotFoundPage} key="default" />,
        ]}
      </Router>
    </Layout>
  );
}

/** A path outside /dashboard (the page was opened under another base): a link in. */
function OutsideDashboard() {
  return (
    <main id="main" class="centered">
      <h1>Page not found</h1>
      <p>
        <a href={href('/')}>Open the dashboard</a>
      </p>
    </main>
  );
}
