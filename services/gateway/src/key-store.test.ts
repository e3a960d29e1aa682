import type { Orm } from '@acct/kit';
import { KeyStore } from './key-store';
import { hashKey } from './keys';
import { testMetrics, valueOf } from './testing/fakes';

const KNOWN = `svc_test_${'K'.repeat(40)}`;
const unknownKey = (i: number) => `svc_test_${String(i).padStart(40, 'u')}`;

/** An orm whose only query is the key lookup: it knows KNOWN and counts the queries it answers. */
function fakeOrm(lastUsedAt: Date | null = new Date()) {
  const queries: string[] = [];
  const touched: string[] = [];
  const row = {
    id: 'key-1',
    key_hash: hashKey(KNOWN),
    organization_id: 'org-1',
    connected_app_id: 'app-1',
    environment: 'test',
    revoked_at: null,
    expires_at: null,
    last_used_at: lastUsedAt, // by default recent: no last-use write
    app_status: 'active',
    enabled_modules: ['customers'],
  };
  const orm = {
    em: {
      getConnection: () => ({
        execute: async (sql: string, [arg]: string[]) => {
          if (sql.startsWith('UPDATE')) return void touched.push(arg!);
          queries.push(arg!);
          return KNOWN.startsWith(arg!) ? [row] : [];
        },
      }),
    },
  } as unknown as Pick<Orm, 'em'>;
  return { orm, queries, touched };
}

describe('KeyStore', () => {
  it('looks an unknown key up once per TTL (negative cache), and again after it', async () => {
    const { orm, queries } = fakeOrm();
    const metrics = testMetrics();
    const store = new KeyStore(orm, 1000, metrics);
    for (let i = 0; i < 5; i++) expect(await store.resolve(unknownKey(1), 10_000)).toBeNull();
    expect(queries).toHaveLength(1);
    expect(await valueOf(metrics.keyLookups, { result: 'cached_unknown' })).toBe(4);
    expect(await store.resolve(unknownKey(1), 11_001)).toBeNull();
    expect(queries).toHaveLength(2);
  });

  it('keeps real principals cached while a flood of made-up keys passes through', async () => {
    const { orm, queries } = fakeOrm();
    const store = new KeyStore(orm, 60_000);
    expect((await store.resolve(KNOWN, 0))?.apiKeyId).toBe('key-1');
    for (let i = 0; i < 10_050; i++) await store.resolve(unknownKey(i), 1);
    const before = queries.length;
    expect((await store.resolve(KNOWN, 2))?.apiKeyId).toBe('key-1');
    expect(queries.length).toBe(before); // still cached: the flood did not evict it
  });

  it('evicts the least recently used answer when full, not the first one in', async () => {
    const { orm, queries } = fakeOrm();
    const store = new KeyStore(orm, 60_000);
    await store.resolve(unknownKey(0), 1);
    for (let i = 1; i < 10_000; i++) await store.resolve(unknownKey(i), 1); // full now
    await store.resolve(unknownKey(0), 2); // cached: the most recent again
    await store.resolve(unknownKey(10_000), 3); // one more: the least recent (key 1) goes
    const before = queries.length;
    await store.resolve(unknownKey(0), 4);
    expect(queries.length).toBe(before);
    await store.resolve(unknownKey(1), 5);
    expect(queries.length).toBe(before + 1);
  });

  it('caches nothing with a TTL of 0', async () => {
    const { orm, queries } = fakeOrm();
    const store = new KeyStore(orm, 0);
    await store.resolve(KNOWN, 10);
    await store.resolve(KNOWN, 10);
    expect(queries).toHaveLength(2);
  });

  it('records the last use of a key loaded from the database when the recorded one is a minute old, not from the cache', async () => {
    const stale = fakeOrm(new Date(Date.now() - 61_000));
    const store = new KeyStore(stale.orm, 60_000);
    await store.resolve(KNOWN, 0);
    await store.resolve(KNOWN, 1); // cached: no write
    expect(stale.touched).toEqual(['key-1']);
    const recent = fakeOrm(new Date(Date.now() - 30_000));
    await new KeyStore(recent.orm, 60_000).resolve(KNOWN, 0);
    expect(recent.touched).toEqual([]);
  });

  it('logs a failed last-use write and still answers', async () => {
    const warn = jest.fn();
    const orm = {
      em: {
        getConnection: () => ({
          execute: async (sql: string) => {
            if (sql.startsWith('UPDATE')) throw new Error('db down');
            return [
              {
                id: 'key-1',
                key_hash: hashKey(KNOWN),
                organization_id: 'o',
                connected_app_id: 'a',
                environment: 'test',
                revoked_at: null,
                expires_at: null,
                last_used_at: null,
                app_status: 'active',
                enabled_modules: [],
              },
            ];
          },
        }),
      },
    } as unknown as Pick<Orm, 'em'>;
    expect((await new KeyStore(orm, 1000, undefined, { warn }).resolve(KNOWN, 0))?.apiKeyId).toBe('key-1');
    await new Promise((r) => setImmediate(r));
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ api_key_id: 'key-1' }), expect.stringMatching(/last use/));
  });
});
