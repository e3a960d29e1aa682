import { AppError, type RpcReply } from '@acct/contracts';
import { freshDatabase, type TestDatabase } from '@acct/testing';
import { type Orm, migrate, openOrm } from './db';
import { RPC_IDEMPOTENCY_MIGRATION, RpcIdempotency, answerOnce } from './rpc-idempotency';

describe('a service answers each Idempotency-Key once (rpc_idempotency, real Postgres)', () => {
  let db: TestDatabase;
  let orm: Orm;
  let keys: RpcIdempotency;
  beforeAll(async () => {
    db = await freshDatabase('acct_kit_keys');
    orm = await openOrm({ url: db.url, schema: 'svc_keys', entities: [], migrations: [RPC_IDEMPOTENCY_MIGRATION] });
    await migrate(orm);
    keys = new RpcIdempotency(orm, 3600, 60);
  });
  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
  });

  const created: RpcReply = { ok: true, status: 201, body: { data: { id: 'c1' } } };
  let n = 0;
  const key = (fingerprint = 'fp-1') => ({ apiKeyId: 'api-key-1', key: `k-${++n}`, fingerprint });
  const once = (k: ReturnType<typeof key>, run: () => Promise<RpcReply>) =>
    answerOnce(keys, k, 'customers.create', {
      run,
      unrecorded: (e) => {
        throw e;
      },
    });
  /** The issue of the 409 a request got, or null when it was answered. */
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: AppError) => e.details[0]?.issue,
    );

  it('runs the first request, and replays its answer (keyReplayed) without running again', async () => {
    const k = key();
    let runs = 0;
    const run = async () => (runs++, created);
    expect(await once(k, run)).toEqual(created);
    expect(await once(k, run)).toEqual({ ...created, keyReplayed: true });
    expect(runs).toBe(1);
  });

  it('keeps a 4xx answer, and frees the key after a 5xx', async () => {
    const conflict: RpcReply = { ok: false, error: AppError.conflict('taken').toBody() };
    const k4 = key();
    await once(k4, async () => conflict);
    expect(await once(k4, async () => created)).toEqual({ ...conflict, keyReplayed: true });
    const k5 = key();
    await once(k5, async () => ({ ok: false, error: { code: 'service_unavailable', message: 'down', details: [] } }));
    expect(await once(k5, async () => created)).toEqual(created);
  });

  it('refuses the key with another request, and a repeat while the first runs (serialized on the key)', async () => {
    const k = key();
    let release!: () => void;
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const first = once(k, () => {
      entered();
      return new Promise<RpcReply>((r) => (release = () => r(created)));
    });
    await inside;
    expect(await refusal(once(k, async () => created))).toBe('in_flight');
    expect(await refusal(once({ ...k, fingerprint: 'fp-other' }, async () => created))).toBe('reused_with_different_request');
    release();
    expect(await first).toEqual(created);
    expect(await refusal(once({ ...k, fingerprint: 'fp-other' }, async () => created))).toBe('reused_with_different_request');
  });

  it('lets a retry take over a key whose request died in flight once it is stale', async () => {
    const k = key();
    expect(await keys.claim(k, 'customers.create')).toEqual({ kind: 'proceed' }); // its process dies here
    expect(await keys.claim(k, 'customers.create')).toEqual({ kind: 'in_flight' });
    await orm.em.getConnection().execute(`UPDATE svc_keys.rpc_idempotency SET created_at = now() - interval '61 seconds' WHERE key = ?`, [k.key]);
    expect(await once(k, async () => created)).toEqual(created);
  });
  it('keeps an answer whose write failed once the database answers again, replaying it meanwhile', async () => {
    const conn = orm.em.getConnection();
    await conn.execute(`CREATE TABLE svc_keys.keep_fails (x int)`);
    await conn.execute(`INSERT INTO svc_keys.keep_fails VALUES (1)`);
    await conn.execute(`CREATE FUNCTION svc_keys.keep_fails() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF EXISTS (SELECT 1 FROM svc_keys.keep_fails) THEN RAISE EXCEPTION 'the database went away'; END IF; RETURN NEW; END $$`);
    await conn.execute(`CREATE TRIGGER keep_fails BEFORE UPDATE ON svc_keys.rpc_idempotency FOR EACH ROW EXECUTE FUNCTION svc_keys.keep_fails()`);
    try {
      const k = key();
      let runs = 0;
      const failures: unknown[] = [];
      const run = async () => (runs++, created);
      const answer = () => answerOnce(keys, k, 'customers.create', { run, unrecorded: (e) => failures.push(e) });
      expect(await answer()).toEqual(created);
      expect(failures).toHaveLength(1);
      // This process replays it from memory; another replica sees the key in flight.
      expect(await answer()).toEqual({ ...created, keyReplayed: true });
      const replica = new RpcIdempotency(orm, 3600, 60);
      expect(await replica.claim(k, 'customers.create')).toEqual({ kind: 'in_flight' });
      await conn.execute(`DELETE FROM svc_keys.keep_fails`);
      const kept = async () => (await conn.execute(`SELECT state FROM svc_keys.rpc_idempotency WHERE key = ?`, [k.key]))[0]?.state === 'completed';
      for (const end = Date.now() + 20_000; !(await kept());) {
        if (Date.now() > end) throw new Error('the answer was not kept once the database answered');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await replica.claim(k, 'customers.create')).toEqual({ kind: 'replay', reply: created });
      expect(runs).toBe(1);
    } finally {
      await conn.execute(`DROP TRIGGER keep_fails ON svc_keys.rpc_idempotency`);
    }
  });
});
