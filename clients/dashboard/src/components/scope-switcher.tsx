import { useEffect, useState } from 'preact/hooks';
import { api, type ListAnswer } from '../api/client';
import { onScopeChange, readScope, writeScope, type Scope } from '../api/scope';
import type { ConnectedApp } from '../api/types';
import { useLoad } from '../hooks';

/** The scope of what the pages show: test or live, and which connected app (docs/dashboard.md "Scope headers"). */
export function ScopeSwitcher() {
  const scope = useScope();
  const apps = useLoad(() => api.get<ListAnswer<ConnectedApp>>('/apps', { limit: 100 }), []);
  const list = apps.data?.data ?? [];
  // An app kept from another session (another organization, a deleted app): back to the default.
  useEffect(() => {
    if (apps.data && scope.app && !apps.data.data.some((a) => a.id === scope.app)) writeScope({ ...scope, app: null });
  }, [apps.data, scope.app]);
  return (
    <form class="scope" aria-label="Scope" onSubmit={(e) => e.preventDefault()}>
      <div class="field-inline">
        <label for="scope-environment">Environment</label>
        <select id="scope-environment" value={scope.environment} onChange={(e) => writeScope({ ...scope, environment: e.currentTarget.value === 'live' ? 'live' : 'test' })}>
          <option value="test">Test</option>
          <option value="live">Live</option>
        </select>
      </div>
      {list.length > 0 ? (
        <div class="field-inline">
          <label for="scope-app">App</label>
          <select id="scope-app" value={scope.app ?? list[0]!.id} onChange={(e) => writeScope({ ...scope, app: e.currentTarget.value })}>
            {list.map((a) => (
              <option value={a.id} key={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      {scope.environment === 'live' ? <span class="badge badge-live">Live data</span> : <span class="badge">Test data</span>}
    </form>
  );
}

/** The current scope, re-rendering when the switcher changes it. */
export function useScope(): Scope {
  const [scope, setScope] = useState<Scope>(readScope);
  useEffect(() => onScopeChange(setScope), []);
  return scope;
}
