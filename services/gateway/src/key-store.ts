import type { Environment, ModuleName } from '@acct/contracts';
import type { Orm } from '@acct/kit';
import { hashKey, hashesEqual, keyPrefix } from './keys';

export interface Principal {
  apiKeyId: string;
  organizationId: string;
  connectedAppId: string;
  environment: Environment;
  revoked: boolean;
  appActive: boolean;
  enabledModules: ReadonlySet<ModuleName>;
}

const CACHE_ENTRIES_MAX = 10_000;

/**
 * Resolves bearer keys to principals. Answers (including "unknown key") are cached for ttlMs, so
 * a revocation or a module change takes effect within that many milliseconds on every replica.
 */
export class KeyStore {
  private readonly cache = new Map<string, { principal: Principal | null; expiresAt: number }>();

  constructor(
    private readonly orm: Orm,
    private readonly ttlMs: number,
  ) {}

  async resolve(key: string, now = Date.now()): Promise<Principal | null> {
    const hash = hashKey(key);
    const hit = this.cache.get(hash);
    if (hit && hit.expiresAt > now) return hit.principal;
    const principal = await this.load(key, hash);
    if (this.cache.size >= CACHE_ENTRIES_MAX) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(hash, { principal, expiresAt: now + this.ttlMs });
    return principal;
  }

  private async load(key: string, hash: string): Promise<Principal | null> {
    const rows: Array<{
      id: string;
      key_hash: string;
      organization_id: string;
      connected_app_id: string;
      environment: Environment;
      revoked_at: Date | null;
      app_status: string;
      enabled_modules: ModuleName[];
    }> = await this.orm.em.getConnection().execute(
      `SELECT k.id, k.key_hash, k.organization_id, k.connected_app_id, k.environment, k.revoked_at,
              a.status AS app_status, o.enabled_modules
         FROM api_keys k
         JOIN connected_apps a ON a.id = k.connected_app_id
         JOIN organizations o ON o.id = k.organization_id
        WHERE k.key_prefix = ?`,
      [keyPrefix(key)],
    );
    const row = rows.find((r) => hashesEqual(r.key_hash, hash));
    if (!row) return null;
    return {
      apiKeyId: row.id,
      organizationId: row.organization_id,
      connectedAppId: row.connected_app_id,
      environment: row.environment,
      revoked: row.revoked_at !== null,
      appActive: row.app_status === 'active',
      enabledModules: new Set(row.enabled_modules),
    };
  }
}
