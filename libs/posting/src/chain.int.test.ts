import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { type JetStreamManager, type NatsConnection } from 'nats';
import { type PostingEvent, type PostingSource, type TrustedContext, eventsStreamName, postingSubject } from '@acct/contracts';
import { Outbox, createMetrics, openOrm, type Orm } from '@acct/kit';
import { ACCOUNT, GENESIS_HASH, type JournalEntryDraft } from '@acct/ledger';
import { chainTamperings, ctx as newCtx, payoutSource, silentLogger, type TestDatabase } from '@acct/testing';
import { Books } from './books';
import { verifyChain, verifyEveryChain } from './chain';
import { ChainVerifier } from './chain-verifier';
import { type BooksBed, booksBed } from './testing/books-bed';

const SCHEMA = 'chain_it';

/**
 * The tamper-evident journal (API-DECISIONS §12) against real Postgres: what Books writes verifies
 * intact, also under group commit; a change made directly in SQL, as a superuser would (triggers
 * off), shows as broken at the first entry affected.
 */
describe('journal hash chain against real Postgres', () => {
  let db: TestDatabase;
  let orm: Orm;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let prefix: string;
  let books: Books;
  let su: Client;

  const draft = (amountCents: number, i = 0): JournalEntryDraft => ({
    entryDate: '2026-11-01',
    sourceType: 'processor_payout',
    sourceId: randomUUID(),
    memo: `entry ${i}`,
    lines: [
      { accountCode: ACCOUNT.expenses, side: 'debit', amountCents },
      { accountCode: ACCOUNT.payable, side: 'credit', amountCents },
    ],
  });
  const source = (): PostingSource => payoutSource();

  /** Posts n entries one transaction after the other; their ids in chain order. */
  async function post(ctx: TrustedContext, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await books.transact(ctx, (tx) => tx.post(draft(100 + i, i), source())));
    return ids;
  }
  const verify = (ctx: TrustedContext) => verifyChain(orm, ctx, { batch: 2 });
  /** A statement as a superuser who turned the triggers off (immutability, foreign keys). */
  const tamper = (sql: string, params: unknown[] = []) => su.query(sql, params);

  let bed: BooksBed | undefined;
  beforeAll(async () => {
    bed = await booksBed('acct_chain', { schema: SCHEMA });
    ({ db, orm, nc, jsm, prefix, books } = bed);
    su = new Client({ connectionString: db.url });
    await su.connect();
    await su.query(`SET search_path = ${SCHEMA}`);
    await su.query('SET session_replication_role = replica');
  });
  afterAll(async () => {
    await su?.end();
    await bed?.stop();
  });

  it('an empty chain and a clean one are intact; each posting event carries its entry’s stored hash', async () => {
    const ctx = newCtx();
    expect(await verify(ctx)).toEqual({ entries: 0, headHash: GENESIS_HASH, firstBrokenEntryId: null, reason: null });
    const ids = await post(ctx, 5);
    const v = await verify(ctx);
    expect(v).toMatchObject({ entries: 5, firstBrokenEntryId: null, reason: null });
    const { rows } = await su.query<{ id: string; hash: string; chain_seq: string }>(
      'SELECT id, hash, chain_seq FROM journal_entries WHERE organization_id = $1 ORDER BY chain_seq',
      [ctx.organizationId],
    );
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(rows.map((r) => Number(r.chain_seq))).toEqual([1, 2, 3, 4, 5]);
    expect(v.headHash).toBe(rows[4]!.hash);
    const last = await jsm.streams.getMessage(eventsStreamName(prefix), { last_by_subj: postingSubject(prefix, 'receivables') });
    const event = last.json<PostingEvent>();
    expect(event.entry.id).toBe(ids[4]);
    expect(event.entry.hash).toBe(rows[4]!.hash);
  });

  it('concurrent group-committed postings of two organizations each stay one intact chain', async () => {
    const a = newCtx();
    const b = newCtx();
    const works = [...Array.from({ length: 60 }, (_, i) => [a, i] as const), ...Array.from({ length: 20 }, (_, i) => [b, i] as const)].map(([c, i]) =>
      books.transactGrouped(c, (tx) => tx.post(draft(100 + i, i), source())),
    );
    expect(new Set(await Promise.all(works)).size).toBe(80);
    expect(await verify(a)).toMatchObject({ entries: 60, firstBrokenEntryId: null });
    expect(await verify(b)).toMatchObject({ entries: 20, firstBrokenEntryId: null });
    // Concurrent transactions (not one group): still one chain each.
    await Promise.all([post(a, 5), post(a, 5), post(b, 5)]);
    expect(await verify(a)).toMatchObject({ entries: 70, firstBrokenEntryId: null });
    expect(await verify(b)).toMatchObject({ entries: 25, firstBrokenEntryId: null });
  });

  it('two writers of one organization (replicas, each predicting its own heads) and a rolled-back group keep one intact chain', async () => {
    const ctx = newCtx();
    const other = new Books(orm, new Outbox(nc, orm, silentLogger()), prefix, 'receivables');
    const both = [books, other];
    // Interleaved: each writer's prediction is stale whenever the other wrote last.
    const works = Array.from({ length: 40 }, (_, i) => both[i % 2]!.transactGrouped(ctx, (tx) => tx.post(draft(100 + i, i), source())));
    expect(new Set(await Promise.all(works)).size).toBe(40);
    for (let i = 0; i < 6; i++) await both[i % 2]!.transact(ctx, (tx) => tx.post(draft(200 + i, i), source()));
    // A write that chained, then failed at COMMIT (a deferred unique check): the head it predicted never
    // was; the next writes chain after the stored head.
    await expect(
      books.transact(ctx, async (tx) => {
        await tx.em.execute('CREATE TEMP TABLE chain_test_fail (id int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED) ON COMMIT DROP');
        await tx.em.execute('INSERT INTO chain_test_fail VALUES (1), (1)');
        return tx.post(draft(300), source());
      }),
    ).rejects.toThrow();
    await books.transact(ctx, (tx) => tx.post(draft(301), source()));
    await other.transact(ctx, (tx) => tx.post(draft(302), source()));
    expect(await verify(ctx)).toMatchObject({ entries: 48, firstBrokenEntryId: null, reason: null });
    const { rows } = await su.query<{ seqs: string[] }>('SELECT array_agg(chain_seq::text ORDER BY chain_seq) AS seqs FROM journal_entries WHERE organization_id = $1', [
      ctx.organizationId,
    ]);
    expect(rows[0]!.seqs.map(Number)).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
  });

  const cases = chainTamperings(tamper);

  it.each(cases)('%s shows as broken at the first entry affected; the other chains stay intact', async (_name, change, first) => {
    const ctx = newCtx({ environment: 'live' });
    const other = newCtx({ environment: 'live' });
    const ids = await post(ctx, 5);
    await post(other, 2);
    expect(await verify(ctx)).toMatchObject({ entries: 5, firstBrokenEntryId: null });
    await change(ids, ctx);
    const v = await verify(ctx);
    expect(v.firstBrokenEntryId).toBe(first(ids));
    expect(v.reason).not.toBeNull();
    expect(await verify(other)).toMatchObject({ entries: 2, firstBrokenEntryId: null });
  });

  it('verifies every chain of the journal (the admin command) and names the broken ones', async () => {
    const seen: number[] = [];
    const all = await verifyEveryChain(orm, 'receivables', (p) => seen.push(p.entries));
    // Every chain of the tests above: the broken ones are exactly the tampered ones.
    expect(all.broken).toHaveLength(cases.length);
    expect(all.broken.every((b) => b.service === 'receivables' && b.environment === 'live' && b.verification.firstBrokenEntryId !== null)).toBe(true);
    expect(all.chains).toBeGreaterThan(cases.length);
    expect(seen.length).toBeGreaterThan(0);
  });

  describe('the scheduled verifier (ChainVerifier, ledger_chain_* metrics)', () => {
    const series = async (m: ReturnType<typeof createMetrics>, name: string) =>
      [...(await m.registry.metrics()).matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`, 'gm'))].map((x) => `${x[1] ?? ''} ${x[2]}`);

    it('reports the broken chains of the journal as metrics, and logs each at error', async () => {
      const metrics = createMetrics('receivables', false);
      const log = silentLogger();
      const errors = jest.spyOn(log, 'error');
      const verifier = new ChainVerifier({ orm, service: 'receivables', log, metrics }, { intervalMs: 3_600_000, firstDelayMs: 3_600_000 });
      expect(await series(metrics, 'ledger_chain_last_verified_timestamp_seconds')).toEqual(['{service="receivables"} 0']);
      // The chains the tests above tampered with.
      expect(await verifier.runOnce()).toBe('broken');
      expect(await series(metrics, 'ledger_chain_broken_chains')).toEqual([`{service="receivables"} ${cases.length}`]);
      expect(await series(metrics, 'ledger_chain_verifications_total')).toEqual(['{outcome="broken",service="receivables"} 1']);
      const [at] = await series(metrics, 'ledger_chain_last_verified_timestamp_seconds');
      expect(Math.abs(Number(at!.split(' ')[1]) - Date.now() / 1000)).toBeLessThan(60);
      expect(errors.mock.calls.filter((c) => c[1] === 'ledger chain broken')).toHaveLength(cases.length);
    });

    it('runs on its timer once started, and counts a run that cannot finish as failed', async () => {
      const metrics = createMetrics('receivables', false);
      const log = silentLogger();
      const ran = new Promise<void>((resolve) => jest.spyOn(log, 'info').mockImplementation(() => resolve()));
      const verifier = new ChainVerifier({ orm, service: 'receivables', log, metrics }, { intervalMs: 3_600_000, firstDelayMs: 0 });
      await verifier.start();
      await ran;
      await verifier.stop();
      expect(await series(metrics, 'ledger_chain_verifications_total')).toEqual(['{outcome="broken",service="receivables"} 1']);
      // A schema without a journal: the verification cannot finish.
      const empty = await openOrm({ url: db.url, schema: 'no_journal_here', entities: [], migrations: [], poolMax: 1 });
      try {
        const other = createMetrics('receivables', false);
        const failing = new ChainVerifier({ orm: empty, service: 'receivables', log: silentLogger(), metrics: other }, { intervalMs: 3_600_000, firstDelayMs: 3_600_000 });
        expect(await failing.runOnce()).toBe('failed');
        expect(await series(other, 'ledger_chain_verifications_total')).toEqual(['{outcome="failed",service="receivables"} 1']);
        expect(await series(other, 'ledger_chain_last_verified_timestamp_seconds')).toEqual(['{service="receivables"} 0']);
      } finally {
        await empty.close(true);
      }
    });

    it('exposes no series when disabled (LEDGER_VERIFY_INTERVAL_MS=0)', async () => {
      const metrics = createMetrics('receivables', false);
      const verifier = new ChainVerifier({ orm, service: 'receivables', log: silentLogger(), metrics }, { intervalMs: 0, firstDelayMs: 0 });
      await verifier.start();
      await verifier.stop();
      expect(await metrics.registry.metrics()).not.toContain('ledger_chain_');
    });
  });
});
