import { Counter, Registry } from 'prom-client';
import { migrate, type Orm } from '@acct/kit';
import { freshDatabase, silentLogger, type TestDatabase } from '@acct/testing';
import { openGatewayOrm } from './db';
import { TokenBuckets } from './rate-limit';
import { BucketSync } from './shared-buckets';

/** Two gateway replicas' buckets synced through the real Postgres table: one budget, bounded slack, fail open. */
describe('shared rate-limit buckets against real Postgres', () => {
  let db: TestDatabase;
  let orm: Orm;
  // Slow enough that the real time between statements refills nothing worth a token.
  const RATE = 0.001;
  const BURST = 10;

  beforeAll(async () => {
    db = await freshDatabase('acct_gw_buckets');
    orm = await openGatewayOrm(db.url, 4);
    await migrate(orm);
  });
  afterAll(async () => {
    await orm.close(true);
    await db.drop();
  });

  const replica = (name: string) => {
    const buckets = new TokenBuckets(RATE, BURST);
    return { buckets, sync: new BucketSync({ orm, name, buckets, intervalMs: 1000, log: silentLogger() }) };
  };
  const takeAll = (b: TokenBuckets, key: string, n: number) => Array.from({ length: n }, () => b.take(key).allowed).filter(Boolean).length;

  it('two replicas share one budget: after a sync, what one spent is gone for the other, overdraft is paid back', async () => {
    const a = replica('key');
    const b = replica('key');
    expect(takeAll(a.buckets, 'k1', 10)).toBe(10);
    await a.sync.sync(); // the shared bucket: 0
    // b never saw k1: its first request is decided alone (1 of overdraft), then its sync brings the debt.
    expect(takeAll(b.buckets, 'k1', 1)).toBe(1);
    await b.sync.sync(); // shared: −1
    expect(takeAll(b.buckets, 'k1', 5)).toBe(0);
    await a.sync.sync();
    expect(takeAll(a.buckets, 'k1', 5)).toBe(0);
    expect(b.buckets.take('k1').remaining).toBe(0);
    // Another key and another bucket name are other budgets.
    expect(takeAll(a.buckets, 'k2', 3)).toBe(3);
    const c = replica('address');
    expect(takeAll(c.buckets, 'k1', 10)).toBe(10);
  });

  it('both replicas spending a full burst before a sync give at most burst × replicas, then the debt (down to −burst) refuses both', async () => {
    const a = replica('key');
    const b = replica('key');
    const first = takeAll(a.buckets, 'k3', 20) + takeAll(b.buckets, 'k3', 20);
    expect(first).toBe(2 * BURST);
    await a.sync.sync();
    await b.sync.sync();
    await a.sync.sync();
    expect(takeAll(a.buckets, 'k3', 5) + takeAll(b.buckets, 'k3', 5)).toBe(0);
    const [row] = await orm.em.fork().getConnection().execute<{ tokens: number }[]>(`SELECT tokens FROM rate_buckets WHERE bucket = 'key' AND key = 'k3'`);
    expect(Number(row?.tokens)).toBeCloseTo(-BURST, 1);
  });

  it('fails open when the store is unreachable: counted, and the replica goes on with its own buckets', async () => {
    const registry = new Registry();
    const errors = new Counter({ name: 'rate_limit_store_errors_total', help: 'x', registers: [registry] });
    const broken = await openGatewayOrm(db.url, 1);
    await broken.close(true);
    const buckets = new TokenBuckets(RATE, BURST);
    const sync = new BucketSync({ orm: broken, name: 'key', buckets, intervalMs: 1000, log: silentLogger(), errors });
    expect(takeAll(buckets, 'k4', 4)).toBe(4);
    await expect(sync.sync()).resolves.toBeUndefined();
    expect((await errors.get()).values[0]?.value).toBe(1);
    expect(takeAll(buckets, 'k4', 10)).toBe(6);
  });
});
