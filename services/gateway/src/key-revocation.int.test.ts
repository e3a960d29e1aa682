import { migrate } from '@acct/kit';
import { waitFor } from '@acct/testing';
import { createApiKey, revokeApiKey } from './admin/admin';
import { gatewayConfigSpec } from './config';
import { openGatewayOrm } from './db';
import { valueOf } from './testing/fakes';
import { gatewayBed } from './testing/int-gateway';

/**
 * API-DECISIONS §13: a revoked key is refused (401) on every gateway replica within 1 s. Two
 * gateways, each with its own key cache and connection pool, on one database, at the configured
 * default AUTH_CACHE_TTL_MS.
 */
const bed = gatewayBed();
const REVOCATION_BOUND_MS = 1000;

describe('key revocation across gateway replicas', () => {
  it('the default AUTH_CACHE_TTL_MS keeps the 1 s bound', () => {
    expect(gatewayConfigSpec.AUTH_CACHE_TTL_MS.default).toBeLessThanOrEqual(REVOCATION_BOUND_MS);
  });

  it('two replicas that cached a key both answer 401 for every request made 1 s after its revocation', async () => {
    const ttlMs = gatewayConfigSpec.AUTH_CACHE_TTL_MS.default!;
    // Replica B has a pool of its own on the same database, as another process would.
    const ormB = await openGatewayOrm(bed.orm.config.getClientUrl(), 2);
    try {
      await migrate(ormB);
      const replicas = [await bed.gateway({ ttlMs }), await bed.gateway({ ttlMs, orm: ormB })];
      const { key, id } = await createApiKey(bed.orm.em.fork(), bed.org.connected_app_id, 'test');
      const check = (base: string) => bed.call(base, '/api/v1/auth/check', { key }).then((r) => r.status);

      // Used on both, twice: the second answer comes from each replica's cache.
      for (const r of replicas) expect([await check(r.base), await check(r.base)]).toEqual([200, 200]);
      for (const r of replicas) expect(await valueOf(r.metrics.keyLookups, { result: 'cached' })).toBe(1);

      // From just before the revocation starts (earlier than its commit: the stricter bound).
      const t0 = Date.now();
      const { revoked } = await revokeApiKey(bed.orm.em.fork(), id);
      expect(revoked).toMatchObject({ api_key_id: id, connected_app_id: bed.org.connected_app_id, organization_id: bed.org.organization_id, environment: 'test' });

      // Each replica is asked without pause until it refuses; every request started past t0 + 1 s must be refused.
      const answers = await Promise.all(
        replicas.map(async (r) => {
          const seen: Array<{ at: number; status: number }> = [];
          await waitFor(
            async () => {
              const at = Date.now() - t0;
              const status = await check(r.base);
              seen.push({ at, status });
              return status === 401;
            },
            REVOCATION_BOUND_MS + 4000,
            10,
          );
          return seen;
        }),
      );
      for (const seen of answers) {
        // The first refusal and the last acceptance, for the log of a failure.
        const firstRefused = seen.find((s) => s.status === 401)!.at;
        expect({ firstRefused, acceptedLate: seen.filter((s) => s.at >= REVOCATION_BOUND_MS && s.status !== 401) }).toEqual({ firstRefused, acceptedLate: [] });
        expect(seen.at(-1)).toMatchObject({ status: 401 });
      }
      // And it stays refused.
      for (const r of replicas) expect(await check(r.base)).toBe(401);
    } finally {
      await ormB.close(true);
    }
  });
});
