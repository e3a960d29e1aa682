/**
 * What `/dashboard/api/v1` and the key routes act on (docs/dashboard.md "Scope headers"): the
 * environment and the connected app, chosen in the header's switcher and kept for the tab's life
 * (sessionStorage: another tab may look at live while this one stays on test).
 */
export type Environment = 'test' | 'live';

export interface Scope {
  environment: Environment;
  /** A connected app's id; null: the organization's first app (the server's default). */
  app: string | null;
}

const ENV_KEY = 'dashboard.environment';
const APP_KEY = 'dashboard.app';

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null; // storage blocked: the scope lives in memory for this page only
  }
}

let memory: Scope = { environment: 'test', app: null };
const listeners = new Set<(s: Scope) => void>();

export function readScope(): Scope {
  const s = storage();
  if (!s) return memory;
  const env = s.getItem(ENV_KEY);
  return { environment: env === 'live' ? 'live' : 'test', app: s.getItem(APP_KEY) || null };
}

export function writeScope(next: Scope): void {
  memory = next;
  const s = storage();
  if (s) {
    s.setItem(ENV_KEY, next.environment);
    if (next.app) s.setItem(APP_KEY, next.app);
    else s.removeItem(APP_KEY);
  }
  for (const l of listeners) l(next);
}

export function onScopeChange(listener: (s: Scope) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The headers a scoped request carries. */
export function scopeHeaders(scope: Scope): Record<string, string> {
  return { 'Dashboard-Environment': scope.environment, ...(scope.app ? { 'Dashboard-App': scope.app } : {}) };
}
