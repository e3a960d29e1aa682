/** Where the pages live: every link and route is under this base (vite.config.ts `base`). */
export const BASE = '/dashboard';

/** `/keys` → `/dashboard/keys`; `/` → `/dashboard/`. */
export function href(path: string): string {
  return path === '/' ? `${BASE}/` : `${BASE}${path}`;
}
