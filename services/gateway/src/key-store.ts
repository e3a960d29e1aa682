import type { Environment, ModuleName } from '@acct/contracts';
import type { Logger, Orm } from '@acct/kit';
import { LRUCache } from 'lru-cache';
import { hashKey, hashesEqual, keyPrefix } from './keys';

export interface Principal {
  apiKeyId: string;
  organizationId: string;
  connectedAppId: string;
  environment: Environment;
  revoked: boolean;
  /** Set when the key was rolled: it is refused from then on, like a revoked one (keyRefusal). Absent: no expiry (a dashboard member's principal). */
  expiresAt?: Date | null;
  appActive: boolean;
  enabledModules: ReadonlySet<ModuleName>;
}

const CACHE_ENTRIES_MAX = 10_000;
/** last_used_at is written at most this often per key (on a cache miss, beside the request). */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Why a known key is refused (401), or null when it may be used: the one check of revocation and
 * expiry, made on every request (a cached principal expires on time, whatever the cache's TTL).
 */
export function keyRefusal(p: Pick<Principal, 'revoked' | 'expiresAt'>, now = Date.now()): 'revoked' | 'expired' | null {
  if (p.revoked) return 'revoked';
  return p.expiresAt && p.expiresAt.getTime() <= now ? 'expired' : null;
}

type KeyLookupResult = 'cached' | 'cached_unknown' | 'database';

/**
 * Resolves bearer keys to principals. Answers are cached for ttlMs, so a revocation or a module
 * change takes effect within that many milliseconds on every replica. Unknown keys are cached too
 * (a negative cache, same TTL), in a map of their own: a flood of made-up keys neither reaches
 * Postgres twice per key nor evicts the principals of real keys.
 */
export class KeyStore {
  /** The clock the caches read: resolve's `now`, so that the TTL counts in the caller's time. */
  private clock = 0;
  private readonly known: LRUCache<string, Principal>;
  private readonly unknown: LRUCache<string, true>;

  constructor(
    private readonly orm: Pick<Orm, 'em'>,
    private readonly ttlMs: number,
    private readonly metrics?: { keyLookups: { inc(labels: { result: KeyLookupResult }): void } },
    private readonly log?: Pick<Logger, 'warn'>,
  ) {
    // ttlResolution 0: every read asks the clock, so an entry is stale exactly ttlMs after it was loaded
    // (the revocation delay); a read does not renew it (updateAgeOnGet false), it only makes it recent.
    const options = { max: CACHE_ENTRIES_MAX, ttl: ttlMs, ttlResolution: 0, perf: { now: () => this.clock } };
    this.known = new LRUCache<string, Principal>(options);
    this.unknown = new LRUCache<string, true>(options);
  }

  async resolve(key: string, now = Date.now()): Promise<Principal | null> {
    const hash = hashKey(key);
    this.clock = now;
    const hit = this.known.get(hash);
    if (hit) return this.counted('cached', hit);
    if (this.unknown.get(hash)) return this.counted('cached_unknown', null);
    const principal = this.counted('database', await this.load(key, hash));
    if (this.ttlMs <= 0) return principal; // lru-cache reads a ttl of 0 as "never expires": cache nothing
    this.clock = now;
    if (principal) this.known.set(hash, principal);
    else this.unknown.set(hash, true);
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
      // timestamptz as the driver hands it over (a string here): read with new Date().
      expires_at: Date | string | null;
      last_used_at: Date | string | null;
      app_status: string;
      enabled_modules: ModuleName[];
    }> = await this.orm.em.getConnection().execute(
      `SELECT k.id, k.key_hash, k.organization_id, k.connected_app_id, k.environment, k.revoked_at, k.expires_at, k.last_used_at,
              a.status AS app_status, o.enabled_modules
         FROM api_keys k
         JOIN connected_apps a ON a.id = k.connected_app_id
         JOIN organizations o ON o.id = k.organization_id
        WHERE k.key_prefix = ?`,
      [keyPrefix(key)],
    );
    const row = rows.find((r) => hashesEqual(r.key_hash, hash));
    if (!row) return null;
    const principal: Principal = {
      apiKeyId: row.id,
      organizationId: row.organization_id,
      connectedAppId: row.connected_app_id,
      environment: row.environment,
      revoked: row.revoked_at !== null,
      expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
      appActive: row.app_status === 'active',
      enabledModules: new Set(row.enabled_modules),
    };
    if (!keyRefusal(principal) && (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() >= LAST_USED_RESOLUTION_MS)) this.touch(row.id);
    return principal;
  }

  /**
   * Records the key's use beside the request, not in its path (no await): at most once a minute per
   * key across the replicas (the statement's condition), a failure only logged.
   */
  private touch(id: string): void {
    this.orm.em
      .getConnection()
      .execute(`UPDATE api_keys SET last_used_at = now() WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= now() - interval '1 minute')`, [id], 'run')
      .catch((err: unknown) => this.log?.warn({ err, api_key_id: id }, 'could not record the last use of an API key'));
  }
}
