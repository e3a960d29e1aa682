import { randomUUID } from 'node:crypto';
import { type JetStreamManager } from 'nats';
import { Migration } from '@mikro-orm/migrations';
import { AppError, type Environment, type PostingSource, type TrustedContext, eventsStreamName, postingSubject } from '@acct/contracts';
import { createMetrics, scopeOf, statement, withQuery, type Orm } from '@acct/kit';
import { ACCOUNT, type JournalEntryDraft } from '@acct/ledger';
import { ctx as newCtx, firstRow, payoutSource } from '@acct/testing';
import { Books } from './books';
import type { GroupBatch, Tx } from './unit-of-work';
import { type BooksBed, booksBed } from './testing/books-bed';
import { applyBooksLock } from './books-lock';
import { verifyChain } from './chain';

class Widgets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`CREATE TABLE widgets (id uuid PRIMARY KEY, ext text NOT NULL, body text NOT NULL, CONSTRAINT widgets_ext UNIQUE (ext), CONSTRAINT widgets_body UNIQUE (body))`);
  }
}

/** The shared posting library against real Postgres and JetStream, owned by a made-up service. */
describe('Books (posting library) against real Postgres and JetStream', () => {
  let orm: Orm;
  let jsm: JetStreamManager;
  let prefix: string;
  let books: Books;
  const metrics = createMetrics('test', false);
  /** ledger_group_commits_total by way (committed, split, failed), so far. */
  const tally = async () => {
    const out: Record<string, number> = {};
    for (const v of (await metrics.groupCommits.get()).values) out[String(v.labels.way)] = v.value;
    return out;
  };
  /** What `tally` counted while `run` ran (only the labels that moved). */
  const counted = async (run: () => Promise<unknown>) => {
    const before = await tally();
    await run();
    const after = await tally();
    return Object.fromEntries(Object.entries(after).flatMap(([k, v]) => (v !== (before[k] ?? 0) ? [[k, v - (before[k] ?? 0)]] : [])));
  };

  const ctx = (environment: Environment = 'test'): TrustedContext => newCtx({ environment });
  const draft = (amountCents: number, credit = amountCents, account: string = ACCOUNT.revenue): JournalEntryDraft => ({
    entryDate: '2026-11-01',
    sourceType: 'processor_payout',
    sourceId: randomUUID(),
    lines: [
      { accountCode: ACCOUNT.expenses, side: 'debit', amountCents },
      { accountCode: account, side: 'credit', amountCents: credit },
    ],
  });
  const source = (): PostingSource => payoutSource();
  const count = async (sql: string, params: unknown[] = []) => Number(firstRow(await orm.em.getConnection().execute(sql, params)).n);
  const streamMessages = async () => (await jsm.streams.info(eventsStreamName(prefix))).state.messages;

  let bed: BooksBed | undefined;
  beforeAll(async () => {
    bed = await booksBed('acct_posting', { schema: 'payables_like', own: [{ name: 'Widgets', class: Widgets }], poolMax: 4, metrics });
    ({ orm, jsm, prefix, books } = bed);
  });
  afterAll(() => bed?.stop());

  it("posts the entry and its event in one transaction; the event is in the stream, on the owning service's subject, when transact resolves", async () => {
    const before = await streamMessages();
    const c = ctx();
    const entryId = await books.transact(c, (tx) => tx.post(draft(1234), source()));
    expect(await count('SELECT count(*) AS n FROM journal_lines WHERE entry_id = ?', [entryId])).toBe(2);
    expect(await count('SELECT count(*) AS n FROM outbox')).toBeGreaterThanOrEqual(1);
    expect(await streamMessages()).toBe(before + 1);
    const last = await jsm.streams.getMessage(eventsStreamName(prefix), { last_by_subj: postingSubject(prefix, 'receivables') });
    const event = JSON.parse(new TextDecoder().decode(last.data));
    expect(event).toMatchObject({
      type: 'journal_entry.posted',
      organization_id: c.organizationId,
      entry: { id: entryId, source_type: 'processor_payout' },
      source: { type: 'processor_payout' },
    });
  });

  it('refuses to post a source type of another service (reporting would refuse it): nothing written, nothing published', async () => {
    const before = { entries: await count('SELECT count(*) AS n FROM journal_entries'), stream: await streamMessages() };
    const wrong = { type: 'bill', bill: {} } as unknown as PostingSource;
    const e = await books.transact(ctx(), (tx) => tx.post({ ...draft(100), sourceType: 'bill' }, wrong)).catch((err: unknown) => err);
    expect(String(e)).toMatch(/receivables cannot post this entry: source type bill is posted by payables, not by receivables/);
    expect({ entries: await count('SELECT count(*) AS n FROM journal_entries'), stream: await streamMessages() }).toEqual(before);
  });

  it('a failure inside the work rolls everything back and publishes nothing', async () => {
    const before = { entries: await count('SELECT count(*) AS n FROM journal_entries'), outbox: await count('SELECT count(*) AS n FROM outbox'), stream: await streamMessages() };
    await expect(
      books.transact(ctx(), async (tx) => {
        await tx.post(draft(500), source());
        const at = new Date().toISOString();
        tx.emit('customer.created', { id: randomUUID(), external_customer_id: 'c', name: 'C', email: null, status: 'active', metadata: {}, created_at: at, updated_at: at });
        throw new AppError('conflict', 'changed my mind');
      }),
    ).rejects.toMatchObject({ code: 'conflict' });
    expect(await count('SELECT count(*) AS n FROM journal_entries')).toBe(before.entries);
    expect(await count('SELECT count(*) AS n FROM outbox')).toBe(before.outbox);
    expect(await streamMessages()).toBe(before.stream);
  });

  it('refuses an event type its service does not emit (BUS_ROLES: its NATS user could not publish it)', async () => {
    const at = new Date().toISOString();
    await expect(
      books.transact(ctx(), async (tx) => {
        tx.emit('vendor.created', {
          id: randomUUID(),
          external_vendor_id: 'v',
          display_name: 'V',
          vendor_type: 'business',
          email: null,
          is_1099_eligible: false,
          w9_on_file: false,
          metadata: {},
          created_at: at,
          updated_at: at,
        });
        return Promise.resolve({ status: 201, body: {} });
      }),
    ).rejects.toThrow('receivables does not emit vendor.created');
  });

  it.each([
    ['unbalanced', draft(100, 99)],
    ['unknown account', draft(100, 100, '9999')],
    ['amount over the limit', draft(Number.MAX_SAFE_INTEGER + 2)],
  ])('a draft the ledger refuses (%s) answers validation_failed, not a 500', async (_, bad) => {
    const e = await books.transact(ctx(), (tx) => tx.post(bad, source())).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(AppError);
    expect(e).toMatchObject({ code: 'validation_failed' });
  });

  describe('group commit (transactGrouped)', () => {
    const xact = async (tx: Tx) => String((await tx.sql<{ x: string }>(statement('t_xact', 'SELECT pg_current_xact_id()::text AS x'), []))[0]!.x);
    const entryCount = (ids: string[]) => count('SELECT count(*) AS n FROM journal_entries WHERE id = ANY(?::uuid[])', [`{${ids.join(',')}}`]);

    it('runs the postings of one tick in one transaction, and publishes every event', async () => {
      const before = await streamMessages();
      const c = ctx();
      const done = await Promise.all(
        [1, 2, 3].map((n) =>
          books.transactGrouped(c, async (tx) => {
            const id = await tx.post(draft(100 * n), source());
            return { id, xact: await xact(tx) };
          }),
        ),
      );
      expect(new Set(done.map((d) => d.xact)).size).toBe(1);
      expect(await entryCount(done.map((d) => d.id))).toBe(3);
      expect(await count('SELECT count(*) AS n FROM journal_lines WHERE entry_id = ANY(?::uuid[])', [`{${done.map((d) => d.id).join(',')}}`])).toBe(6);
      expect(await streamMessages()).toBe(before + 3);
    });

    it("runs one group of an organization at a time (its next works gather behind it) while another organization's works run beside it", async () => {
      const a = ctx();
      const b = ctx();
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const order: string[] = [];
      const post = (c: typeof a, name: string, wait?: Promise<void>) =>
        books.transactGrouped(c, async (tx) => {
          if (wait) await wait;
          const id = await tx.post(draft(100), source());
          order.push(name);
          return { id, xact: await xact(tx) };
        });
      const first = post(a, 'a1', held); // organization a's group, held open
      await new Promise((r) => setImmediate(r));
      const later = [post(a, 'a2'), post(a, 'a3')];
      const other = await post(b, 'b1'); // not behind a's group
      expect(order).toEqual(['b1']);
      release();
      const [r1, r2, r3] = await Promise.all([first, ...later]);
      expect(order).toEqual(['b1', 'a1', 'a2', 'a3']);
      expect(r2!.xact).toBe(r3!.xact); // gathered into the next group of a
      expect(new Set([r1.xact, r2!.xact, other.xact]).size).toBe(3);
      expect(await entryCount([r1.id, r2!.id, r3!.id, other.id])).toBe(4);
    });

    it('runs a GroupBatch once for its works in a group, in queue order, before them; after a rollback each half runs it again for its own', async () => {
      const runs: string[][] = [];
      const kind: GroupBatch<string, string> = {
        async run({ sql }, items) {
          runs.push(items.map((i) => i.arg));
          const rows = await sql<{ ext: string }>(
            statement('t_widgets_batch', `INSERT INTO widgets (id, ext, body) SELECT gen_random_uuid(), e, e FROM unnest(?::text[]) AS e WHERE e NOT LIKE 'skip%' RETURNING ext`),
            [items.map((i) => i.arg)],
          );
          return items.map((i) => (rows.some((r) => r.ext === i.arg) ? `inserted ${i.arg}` : undefined));
        },
      };
      const widgets = (exts: string[]) => count('SELECT count(*) AS n FROM widgets WHERE ext = ANY(?::text[])', [`{${exts.join(',')}}`]);
      const c = ctx();
      const exts = [randomUUID(), `skip${randomUUID()}`, randomUUID()];
      const work = async (tx: Tx, got?: string) => ({ got, xact: await xact(tx) });
      const done = await Promise.all([...exts.map((arg) => books.transactGrouped(c, work, { kind, arg })), books.transactGrouped(c, work)]);
      expect(runs).toEqual([exts]); // once, in queue order
      expect(done.map((d) => d.got)).toEqual([`inserted ${exts[0]}`, undefined, `inserted ${exts[2]}`, undefined]);
      expect(new Set(done.map((d) => d.xact)).size).toBe(1);
      expect(await widgets(exts)).toBe(2);

      // A failing work rolls the group back, the batch's statement with it; the group is then split in
      // halves ([a, failing], [b]), then [a, failing] in [a] and [failing]: each group runs its own batch.
      runs.length = 0;
      const more = [randomUUID(), randomUUID()];
      let settled: PromiseSettledResult<{ got?: string }>[] = [];
      expect(
        await counted(
          async () =>
            (settled = await Promise.allSettled([
              books.transactGrouped(c, work, { kind, arg: more[0]! }),
              books.transactGrouped(c, async () => Promise.reject(new AppError('conflict', 'not this one'))),
              books.transactGrouped(c, work, { kind, arg: more[1]! }),
            ])),
        ),
      ).toEqual({ split: 2, committed: 2, failed: 1 });
      const [a, failed, b] = settled;
      expect(failed!.status).toBe('rejected');
      expect(runs).toEqual([more, [more[0]], [more[0]], [more[1]]]);
      expect([a, b].map((r) => (r as PromiseFulfilledResult<{ got?: string }>).value.got)).toEqual([`inserted ${more[0]}`, `inserted ${more[1]}`]);
      expect(await widgets(more)).toBe(2);
    });

    it.each([
      ['its work throws', async () => Promise.reject(new AppError('conflict', 'not this one'))],
      ['its entry is refused by the ledger', (tx: Tx) => tx.post(draft(100, 99), source())],
      [
        'COMMIT refuses it (an unbalanced entry written by hand)',
        async (tx: Tx) => {
          const id = randomUUID();
          await tx.sql(
            statement(
              't_bad_entry',
              `INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id) VALUES (?, ?, 'test', '2026-11-01', 'manual', ?)`,
            ),
            [id, tx.scope.organizationId, id],
          );
        },
      ],
    ])('a posting that fails (%s) fails alone: its neighbours are committed in the halves of its group and succeed', async (_, bad) => {
      const before = await streamMessages();
      const c = ctx();
      const good = (amount: number) =>
        books.transactGrouped(c, async (tx) => {
          const id = await tx.post(draft(amount), source());
          return { id, xact: await xact(tx) };
        });
      const [a, failed, b] = await Promise.allSettled([good(10), books.transactGrouped(c, bad as (tx: Tx) => Promise<unknown>), good(20)]);
      expect(failed.status).toBe('rejected');
      expect(a.status).toBe('fulfilled');
      expect(b.status).toBe('fulfilled');
      const [ra, rb] = [(a as PromiseFulfilledResult<{ id: string; xact: string }>).value, (b as PromiseFulfilledResult<{ id: string; xact: string }>).value];
      expect(ra.xact).not.toBe(rb.xact); // [a, failing] then [a] alone, and [b]: each in a transaction of its own
      expect(await entryCount([ra.id, rb.id])).toBe(2);
      expect(await streamMessages()).toBe(before + 2);
    });
  });

  describe('one write path (a group of any size, one transaction, split on failure)', () => {
    const xact = async (tx: Tx) => String((await tx.sql<{ x: string }>(statement('t_xact', 'SELECT pg_current_xact_id()::text AS x'), []))[0]!.x);
    const entryCount = (ids: string[]) => count('SELECT count(*) AS n FROM journal_entries WHERE id = ANY(?::uuid[])', [`{${ids.join(',')}}`]);
    /** A made-up batch: marks the group's widgets `posted` in one statement; each work gets its widget as marked, undefined when it was marked already. */
    const marking = (calls: string[]): GroupBatch<string, string> => ({
      async run({ sql }, items) {
        calls.push('run');
        const rows = await sql<{ ext: string }>(
          statement('t_widgets_mark', `UPDATE widgets SET body = 'posted ' || ext WHERE ext = ANY(?::text[]) AND body NOT LIKE 'posted %' RETURNING ext`),
          [items.map((i) => i.arg)],
        );
        return items.map((i) => (rows.some((r) => r.ext === i.arg) ? `posted ${i.arg}` : undefined));
      },
    });
    const widgets = (exts: string[]) =>
      orm.em.getConnection().execute<{ ext: string; body: string }[]>(`SELECT ext, body FROM widgets WHERE ext = ANY(?::text[]) ORDER BY ext`, [`{${exts.join(',')}}`]);
    /** A scope this process has posted to, with a lock date set. */
    const known = async () => {
      const c = ctx();
      await books.transact(c, (tx) => tx.post(draft(1), source()));
      await withQuery(orm, (q) => applyBooksLock(q, scopeOf(c), 1, '2026-01-31'));
      return c;
    };
    const newWidgets = async (n: number) => {
      const exts = Array.from({ length: n }, () => randomUUID());
      for (const e of exts) await orm.em.getConnection().execute('INSERT INTO widgets (id, ext, body) VALUES (?, ?, ?)', [randomUUID(), e, `draft ${e}`]);
      return exts;
    };
    const postEach = (c: TrustedContext, kind: GroupBatch<string, string>, exts: string[], date = '2026-11-01') =>
      Promise.allSettled(
        exts.map((arg) =>
          books.transactGrouped(
            c,
            async (tx, got?: string) => {
              const id = await tx.post({ ...draft(100), entryDate: date }, source());
              return { id, got };
            },
            { kind, arg },
          ),
        ),
      );
    const values = <T>(settled: PromiseSettledResult<T>[]) => settled.map((r) => (r.status === 'fulfilled' ? r.value : r.reason));

    it('writes a group in one transaction: the batch run once, every entry, mark and event written, the chain whole', async () => {
      const c = await known();
      const exts = await newWidgets(3);
      const calls: string[] = [];
      const before = await streamMessages();
      let done: { id: string; got: string }[] = [];
      expect(await counted(async () => (done = values(await postEach(c, marking(calls), exts)) as typeof done))).toEqual({ committed: 1 });
      expect(calls).toEqual(['run']);
      expect(done.map((d) => d.got)).toEqual(exts.map((e) => `posted ${e}`));
      expect(await entryCount(done.map((d) => d.id))).toBe(3);
      expect((await widgets(exts)).map((w) => w.body)).toEqual([...exts].sort().map((e) => `posted ${e}`));
      expect(await streamMessages()).toBe(before + 3);
      // The chain is whole: the verifier finds every entry where the hashes say.
      expect(await verifyChain(orm, scopeOf(c))).toMatchObject({ firstBrokenEntryId: null, entries: 4 });
    });

    it('marks what is left when a row changed before the group: the work of a row marked meanwhile gets no mark', async () => {
      const c = await known();
      const exts = await newWidgets(2);
      const calls: string[] = [];
      await orm.em.getConnection().execute(`UPDATE widgets SET body = 'posted ' || ext WHERE ext = ?`, [exts[0]]); // marked meanwhile
      let done: { id: string; got?: string }[] = [];
      expect(await counted(async () => (done = values(await postEach(c, marking(calls), exts)) as typeof done))).toEqual({ committed: 1 });
      expect(calls).toEqual(['run']);
      expect(done.map((d) => d.got)).toEqual([undefined, `posted ${exts[1]}`]); // the first was no longer a draft
      expect(await entryCount(done.map((d) => d.id))).toBe(2);
      expect(await verifyChain(orm, scopeOf(c))).toMatchObject({ firstBrokenEntryId: null, entries: 3 });
    });

    it('refuses the posts a new lock date covers: the group is split until each is alone, each answers 409, nothing is written', async () => {
      const c = await known();
      const exts = await newWidgets(2);
      const calls: string[] = [];
      await withQuery(orm, (q) => applyBooksLock(q, scopeOf(c), 2, '2026-11-15'));
      let done: unknown[] = [];
      expect(await counted(async () => (done = values(await postEach(c, marking(calls), exts, '2026-11-10'))))).toEqual({ split: 1, failed: 2 });
      expect(calls).toEqual(['run', 'run', 'run']); // the group's batch, then each half's
      expect(done.map((e) => (e as AppError).code)).toEqual(['period_locked', 'period_locked']);
      expect((await widgets(exts)).map((w) => w.body.startsWith('posted'))).toEqual([false, false]);
      expect(await verifyChain(orm, scopeOf(c))).toMatchObject({ firstBrokenEntryId: null, entries: 1 });
    });

    it('a batch that fails fails its group: split until alone, each work answers its own failure', async () => {
      const c = await known();
      const calls: string[] = [];
      const broken: GroupBatch<string, string> = { run: () => (calls.push('run'), Promise.reject(new Error('the batch failed'))) };
      const exts = await newWidgets(2);
      let done: unknown[] = [];
      expect(await counted(async () => (done = values(await postEach(c, broken, exts))))).toEqual({ split: 1, failed: 2 });
      expect(calls).toEqual(['run', 'run', 'run']);
      expect(done.map((e) => (e as Error).message)).toEqual(['the batch failed', 'the batch failed']);
      expect(await verifyChain(orm, scopeOf(c))).toMatchObject({ firstBrokenEntryId: null, entries: 1 });
    });

    it('writes a work that reads on its own, a work alone and a new scope the same way: one transaction with its batch', async () => {
      const c = await known();
      const exts = await newWidgets(2);
      const calls: string[] = [];
      const kind = marking(calls);
      let done: { got?: string; xact: string }[] = [];
      expect(
        await counted(
          async () => (done = await Promise.all(exts.map((arg) => books.transactGrouped(c, async (tx, got?: string) => ({ got, xact: await xact(tx) }), { kind, arg })))),
        ),
      ).toEqual({ committed: 1 });
      expect(calls).toEqual(['run']);
      expect(done.map((d) => d.got)).toEqual(exts.map((e) => `posted ${e}`));
      expect(done[0]!.xact).toBe(done[1]!.xact);

      // A work alone: a group of one, its batch with one item.
      calls.length = 0;
      const [alone] = await newWidgets(1);
      expect(await counted(async () => expect(values(await postEach(c, marking(calls), [alone!])).map((d) => (d as { got?: string }).got)).toEqual([`posted ${alone}`]))).toEqual({
        committed: 1,
      });
      expect(calls).toEqual(['run']);

      const fresh = ctx();
      calls.length = 0;
      const others = await newWidgets(2);
      expect(
        await counted(async () => expect(values(await postEach(fresh, marking(calls), others)).map((d) => (d as { got: string }).got)).toEqual(others.map((e) => `posted ${e}`))),
      ).toEqual({ committed: 1 });
      expect(calls).toEqual(['run']);
    });

    it('transact() is a group of one, at once: the same unit of work, counted the same way', async () => {
      const c = ctx();
      expect(await counted(() => books.transact(c, (tx) => tx.post(draft(5), source())))).toEqual({ committed: 1 });
      expect(await counted(() => books.transact(c, (tx) => tx.post(draft(5, 4), source())).catch(() => undefined))).toEqual({ failed: 1 });
    });
  });
});
