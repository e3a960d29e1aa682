import type { Orm } from '@acct/kit';
import { KeyStore } from './key-store';
import { hashKey } from './keys';
import { testMetrics, valueOf } from './testing/fakes';

const KNOWN = `svc_test_${'K'.repeat(40)}`;
const unknownKey = (i: number) => `svc_test_${String(i).padStart(40, 'u')}`;

/** An orm whose only query is the key lookup: it knows KNOWN and counts the queries it answers. */
function fakeOrm() {
  const queries: string[] = [];
  const row = {
    id: 'key-1',
    key_hash: hashKey(KNOWN),
    organization_id: 'org-1',
    connected_app_id: 'app-1',
    environment: 'test',
    revoked_at: null,
    app_status: 'active',
    enabled_modules: ['customers'],
  };
  const orm = {
    em: { getConnection: () => ({ execute: async (_sql: string, [prefix]: string[]) => (queries.push(prefix!), KNOWN.startsWith(prefix!) ? [row] : []) }) },
  } as unknown as Pick<Orm, 'em'>;
  return { orm, queries };
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
});
