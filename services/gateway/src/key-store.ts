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

type KeyLookupResult = 'cached' | 'cached_unknown' | 'database';

/** A bounded map of answers that expire: the oldest entry goes when it is full. */
class ExpiringCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();
  constructor(private readonly max: number) {}
  get(k: string, now: number): { value: T } | undefined {
    const hit = this.entries.get(k);
    if (!hit) return undefined;
    if (hit.expiresAt > now) return hit;
    this.entries.delete(k);
    return undefined;
  }
  set(k: string, value: T, expiresAt: number): void {
    this.entries.delete(k);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(k, { value, expiresAt });
  }
  get size(): number {
    return this.entries.size;
  }
}

/**
 * Resolves bearer keys to principals. Answers are cached for ttlMs, so a revocation or a module
 * change takes effect within that many milliseconds on every replica. Unknown keys are cached too
 * (a negative cache, same TTL), in a map of their own: a flood of made-up keys neither reaches
 * Postgres twice per key nor evicts the principals of real keys.
 */
export class KeyStore {
  private readonly known = new ExpiringCache<Principal>(CACHE_ENTRIES_MAX);
  private readonly unknown = new ExpiringCache<null>(CACHE_ENTRIES_MAX);

  constructor(
    private readonly orm: Pick<Orm, 'em'>,
    private readonly ttlMs: number,
    private readonly metrics?: { keyLookups: { inc(labels: { result: KeyLookupResult }): void } },
  ) {}

  async resolve(key: string, now = Date.now()): Promise<Principal | null> {
    const hash = hashKey(key);
    const hit = this.known.get(hash, now);
    if (hit) return this.counted('cached', hit.value);
    if (this.unknown.get(hash, now)) return this.counted('cached_unknown', null);
    const principal = this.counted('database', await this.load(key, hash));
    if (principal) this.known.set(hash, principal, now + this.ttlMs);
    else this.unknown.set(hash, null, now + this.ttlMs);
    return principal;
  }

  private counted<T>(result: KeyLookupResult, value: T): T {
    this.metrics?.keyLookups.inc({ result });
    return value;
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
