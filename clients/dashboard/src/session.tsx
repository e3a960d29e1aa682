import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { api, setCsrfToken, setUnauthorizedHandler } from './api/client';
import type { ApiError } from './api/errors';
import type { SessionInfo } from './api/types';

/**
 * The signed-in state: GET /dashboard/api/session when the page loads; a 401 there, or on any later
 * request, means signed out (the sign-in page is shown in place of the page asked for).
 */
export type SessionState = { status: 'loading' } | { status: 'signed-out'; reason?: string } | { status: 'signed-in'; session: SessionInfo } | { status: 'error'; error: ApiError };

export interface SessionApi {
  state: SessionState;
  /** After sign-in, passkey sign-in or accepting an invitation: the answer's member and token. */
  signedIn: (session: SessionInfo) => void;
  signOut: (everywhere?: boolean) => Promise<void>;
  reload: () => Promise<void>;
}

const SessionContext = createContext<SessionApi | null>(null);

export function useSession(): SessionApi {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/** The signed-in member's session; throws when called on a page shown signed out. */
export function useSignedIn(): SessionInfo {
  const { state } = useSession();
  if (state.status !== 'signed-in') throw new Error('not signed in');
  return state.session;
}

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });

  const apply = useCallback((next: SessionState) => {
    setCsrfToken(next.status === 'signed-in' ? next.session.csrf_token : null);
    setState(next);
  }, []);

  const reload = useCallback(async () => {
    try {
      const { data } = await api.get<{ data: SessionInfo }>('/session');
      apply({ status: 'signed-in', session: data });
    } catch (err) {
      const e = err as ApiError;
      apply(e.status === 401 ? { status: 'signed-out' } : { status: 'error', error: e });
    }
  }, [apply]);

  useEffect(() => {
    setUnauthorizedHandler(() => apply({ status: 'signed-out', reason: 'Your session has ended. Sign in again.' }));
    void reload();
    return () => setUnauthorizedHandler(null);
  }, [apply, reload]);

  const value = useMemo<SessionApi>(
    () => ({
      state,
      reload,
      // The sign-in answers carry no organization: read the whole session once more for it.
      signedIn: (session) => {
        apply({ status: 'signed-in', session });
        void reload();
      },
      signOut: async (everywhere = false) => {
        await api.del(everywhere ? '/sessions' : '/session');
        apply({ status: 'signed-out', reason: everywhere ? 'Signed out on every device.' : 'Signed out.' });
      },
    }),
    [state, reload, apply],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
