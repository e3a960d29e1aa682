import type { ModuleName } from '@acct/contracts';
import type { Orm } from '@acct/kit';
import { LRUCache } from 'lru-cache';

/** An organization as a dashboard request acts on it: its modules and connected apps, oldest first. */
export interface OrgScope {
  enabledModules: ReadonlySet<ModuleName>;
  apps: ReadonlyArray<{ id: string; active: boolean }>;
}

const CACHE_ENTRIES_MAX = 10_000;

/**
 * The organizations of signed-in members, cached ttlMs like the key store's principals (a new app,
 * a disabled one or a module change shows within that time); an unknown organization is not cached.
 */
export class ScopeStore {
  private clock = 0;
  private readonly cache: LRUCache<string, OrgScope>;

  constructor(
    private readonly orm: Pick<Orm, 'em'>,
    private readonly ttlMs: number,
  ) {
    this.cache = new LRUCache<string, OrgScope>({ max: CACHE_ENTRIES_MAX, ttl: Math.max(ttlMs, 1), ttlResolution: 0, perf: { now: () => this.clock } });
  }

  async org(organizationId: string, now = Date.now()): Promise<OrgScope | null> {
    this.clock = now;
    const hit = this.cache.get(organizationId);
    if (hit) return hit;
    const scope = await this.load(organizationId);
    if (scope && this.ttlMs > 0) {
      this.clock = now;
      this.cache.set(organizationId, scope);
    }
    return scope;
  }

  private async load(organizationId: string): Promise<OrgScope | null> {
    const rows: Array<{ enabled_modules: ModuleName[]; app_id: string | null; app_status: string | null }> = await this.orm.em.getConnection().execute(
      `SELECT o.enabled_modules, a.id AS app_id, a.status AS app_status
         FROM organizations o
         LEFT JOIN connected_apps a ON a.organization_id = o.id
        WHERE o.id = ?
        ORDER BY a.created_at, a.id`,
      [organizationId],
    );
    const first = rows[0];
    if (!first) return null;
    return {
      enabledModules: new Set(first.enabled_modules),
      apps: rows.filter((r) => r.app_id !== null).map((r) => ({ id: r.app_id!, active: r.app_status === 'active' })),
    };
  }
}

/** What a dashboard request needs of the store: tests hand in a fake. */
export type ScopeResolver = Pick<ScopeStore, 'org'>;
