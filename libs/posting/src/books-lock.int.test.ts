import { randomUUID } from 'node:crypto';
import { type PostingSource, type TrustedContext, isAppError } from '@acct/contracts';
import { scopeOf, transactionQuery, withQuery, type Orm } from '@acct/kit';
import { ACCOUNT, type JournalEntryDraft } from '@acct/ledger';
import { ctx, firstRow, payoutSource, waitFor } from '@acct/testing';
import { Books } from './books';
import { applyBooksLock, readBooksLock } from './books-lock';
import { type BooksBed, booksBed } from './testing/books-bed';

/**
 * The lock date check of Books against real Postgres: a posting reads the copy FOR SHARE in its own
 * transaction, so a change of the copy waits for the postings in flight to commit, and a posting
 * that starts while a change is uncommitted waits for it and sees the new date. Waiting is observed
 * in pg_stat_activity (a backend waiting on a lock), never by timing.
 */
describe('Books: the lock date check against real Postgres', () => {
  let orm: Orm;
  let books: Books;

  const draft = (entryDate: string): JournalEntryDraft => ({
    entryDate,
    sourceType: 'processor_payout',
    sourceId: randomUUID(),
    lines: [
      { accountCode: ACCOUNT.expenses, side: 'debit', amountCents: 100 },
      { accountCode: ACCOUNT.payable, side: 'credit', amountCents: 100 },
    ],
  });
  const source = (): PostingSource => payoutSource({ fee_cents: 0, net_cents: 100 });
  const entries = async (c: TrustedContext) =>
    Number(firstRow(await orm.em.getConnection().execute('SELECT count(*) AS n FROM journal_entries WHERE organization_id = ?', [c.organizationId])).n);
  const post = (c: TrustedContext, date: string) => books.transact(c, (tx) => tx.post(draft(date), source()));
  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: unknown) => (isAppError(e) ? e.code : String(e)),
    );
  /** Resolves once some backend waits on a row lock of books_lock. */
  const someoneWaits = () =>
    waitFor(async () => {
      const rows = await orm.em
        .getConnection()
        .execute(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%books_lock%' AND datname = current_database()`);
      return rows.length > 0;
    });
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((r) => (open = r));
    return { open, opened };
  };

  let bed: BooksBed | undefined;
  beforeAll(async () => {
    bed = await booksBed('acct_lock', { schema: 'payables_like' });
    ({ orm, books } = bed);
  });
  afterAll(() => bed?.stop());

  it('refuses a posting on or before the lock date with period_locked (nothing written) and takes one after it', async () => {
    const c = ctx();
    expect(await post(c, '2026-11-01')).toEqual(expect.any(String)); // no row yet: no lock, and the row is made
    expect(await withQuery(orm, (q) => readBooksLock(q, scopeOf(c)))).toEqual({ version: 0, lock_date: null });
    await withQuery(orm, (q) => applyBooksLock(q, scopeOf(c), 1, '2026-11-30'));
    expect(await codeOf(post(c, '2026-11-30'))).toBe('period_locked');
    expect(await codeOf(post(c, '2026-01-01'))).toBe('period_locked');
    expect(await entries(c)).toBe(1);
    expect(await codeOf(post(c, '2026-12-01'))).toBe('ok');
    // Another environment of the organization has its own lock date.
    expect(await codeOf(post({ ...c, environment: 'live' }, '2026-11-01'))).toBe('ok');
  });

  it("applies a version (the owner's event) only when newer", async () => {
    const c = ctx();
    const s = scopeOf(c);
    expect(await withQuery(orm, (q) => applyBooksLock(q, s, 2, '2026-05-31'))).toEqual({ version: 2, lock_date: '2026-05-31' });
    expect(await withQuery(orm, (q) => applyBooksLock(q, s, 1, '2026-01-31'))).toEqual({ version: 2, lock_date: '2026-05-31' });
    expect(await withQuery(orm, (q) => applyBooksLock(q, s, 2, null))).toEqual({ version: 2, lock_date: '2026-05-31' });
    expect(await withQuery(orm, (q) => applyBooksLock(q, s, 3, null))).toEqual({ version: 3, lock_date: null });
  });

  it('a change of the copy waits for a posting in flight, which commits; postings after it are refused', async () => {
    const c = ctx();
    await post(c, '2026-06-01'); // the row exists
    const g = gate();
    const holding = gate();
    const inFlight = books.transact(c, async (tx) => {
      const id = await tx.post(draft('2026-06-15'), source());
      holding.open();
      await g.opened; // the transaction stays open, holding the copy FOR SHARE
      return id;
    });
    await holding.opened;
    let applied = false;
    const change = withQuery(orm, (q) => applyBooksLock(q, scopeOf(c), 1, '2026-06-30')).then((r) => {
      applied = true;
      return r;
    });
    await someoneWaits();
    expect(applied).toBe(false);
    g.open();
    expect(await codeOf(inFlight)).toBe('ok');
    expect(await change).toEqual({ version: 1, lock_date: '2026-06-30' });
    expect(await entries(c)).toBe(2);
    expect(await codeOf(post(c, '2026-06-15'))).toBe('period_locked');
  });

  it('a posting that starts while a change is uncommitted waits for it and sees the new lock date', async () => {
    const c = ctx();
    await post(c, '2026-07-01');
    const g = gate();
    const changed = gate();
    const change = orm.em.fork().transactional(async (em) => {
      await applyBooksLock(await transactionQuery(em), scopeOf(c), 1, '2026-07-31');
      changed.open();
      await g.opened;
    });
    await changed.opened;
    const late = codeOf(post(c, '2026-07-15'));
    await someoneWaits();
    g.open();
    await change;
    expect(await late).toBe('period_locked');
    expect(await entries(c)).toBe(1);
  });

  it('in a group commit, a refused work fails alone and the others commit', async () => {
    const c = ctx();
    await withQuery(orm, (q) => applyBooksLock(q, scopeOf(c), 1, '2026-08-31'));
    const outcomes = await Promise.all(['2026-09-01', '2026-08-31', '2026-09-02', '2026-08-01'].map((d) => codeOf(books.transactGrouped(c, (tx) => tx.post(draft(d), source())))));
    expect(outcomes).toEqual(['ok', 'period_locked', 'ok', 'period_locked']);
    expect(await entries(c)).toBe(2);
  });
});
