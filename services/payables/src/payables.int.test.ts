import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { JetStreamManager } from 'nats';
import { type TrustedContext, compileBody, eventsStreamName, schemas } from '@acct/contracts';
import { accountId } from '@acct/ledger';
import { BooksLockCheck, catalogueErrors, verifyChain } from '@acct/posting';
import { type TestService, ctx, entryLines, expectRelayHeals, firstRow, outcome, payablesCalls, startServiceForTest, withBatchSpies, withStatementLog } from '@acct/testing';
import { INSERT_BILLS_BATCH } from './queries';
import { payablesService } from './service';

const validVendor = compileBody(schemas.payables.vendorResponse);
const validBill = compileBody(schemas.payables.billResponse);
const validPayment = compileBody(schemas.payables.vendorPaymentResponse);

/**
 * The payables service against real Postgres and NATS JetStream: vendors, bills, vendor payments,
 * their journal entries and events, races on one bill, a crash before publish, and the invariants
 * (debits = credits, A/P = open balances of posted bills) over random sequences of calls.
 */
describe('payables against real Postgres and JetStream', () => {
  let svc: TestService;
  let jsm: JetStreamManager;
  let prefix: string;
  const { call, vendor, bill, billBody, pay, payOk } = payablesCalls(() => svc);
  const sql = (q: string, params: unknown[] = []) => svc.sql(q, params);
  const streamMessages = async () => (await jsm.streams.info(eventsStreamName(prefix))).state.messages;
  const billRow = async (id: string) => firstRow(await sql(`SELECT status, paid_cents::int AS paid, total_cents::int AS total FROM bills WHERE id = ?`, [id]));

  beforeAll(async () => {
    svc = await startServiceForTest(payablesService());
    ({ prefix } = svc);
    jsm = await svc.nc.jetstreamManager();
  });

  afterAll(() => svc.stop());

  describe('vendors', () => {
    it('creates (201), replays the same content (200), refuses other content (409) and emits vendor.created once', async () => {
      const c = ctx();
      const body = { external_vendor_id: 'v-1', display_name: 'Grace', email: 'ap@grace.example', is_1099_eligible: true };
      const created = await call('vendors.create', c, { body });
      expect(created.ok && created.status).toBe(201);
      expect(validVendor(created.ok && created.body)).toBe(true);
      expect(created.ok && created.body.data).toMatchObject({ ...body, vendor_type: 'contractor', w9_on_file: false });
      const replay = await call('vendors.create', c, { body: { ...body, vendor_type: 'contractor' } });
      expect(replay.ok && [replay.status, replay.replayed]).toEqual([200, true]);
      const conflict = await call('vendors.create', c, { body: { ...body, display_name: 'Other' } });
      expect(conflict.ok ? 'ok' : conflict.error.details[0]).toMatchObject({ field: '/external_vendor_id', issue: 'already_used' });
      const events = await sql(`SELECT payload FROM outbox WHERE subject = ? AND payload->>'organization_id' = ?`, [`${prefix}.events.reference.vendor.created`, c.organizationId]);
      expect(events).toHaveLength(1);
    });

    it('PATCH changes only the named fields, emits vendor.updated when something changed, and 404s across scopes', async () => {
      const c = ctx();
      const id = await vendor(c, { email: 'a@b.example' });
      const updated = await svc.ok('vendors.update', c, { params: { id }, body: { w9_on_file: true, email: null } });
      expect(updated).toMatchObject({ id, display_name: 'V', email: null, w9_on_file: true, is_1099_eligible: false });
      expect(updated.updated_at > updated.created_at).toBe(true);
      await svc.ok('vendors.update', c, { params: { id }, body: { w9_on_file: true } }); // no change: no event
      const events = await sql(`SELECT payload FROM outbox WHERE subject = ? AND payload->'data'->>'id' = ?`, [`${prefix}.events.reference.vendor.updated`, id]);
      expect(events).toHaveLength(1);
      expect((firstRow(events).payload as { data: unknown }).data).toEqual(updated);
      expect((await svc.ok('vendors.get', c, { params: { id } })).w9_on_file).toBe(true);
      for (const other of [ctx(), ctx({ organizationId: c.organizationId, environment: 'live' })]) {
        expect(outcome(await call('vendors.update', other, { params: { id }, body: { w9_on_file: false } }))).toBe('not_found');
        expect(outcome(await call('vendors.get', other, { params: { id } }))).toBe('not_found');
      }
    });

    it('lists with filters and pagination', async () => {
      const c = ctx();
      for (let i = 1; i <= 4; i++) await vendor(c, { display_name: `V${i}`, is_1099_eligible: i % 2 === 0, vendor_type: i === 4 ? 'business' : 'contractor' });
      const page = await call('vendors.list', c, { query: { limit: 2, offset: 0 } });
      expect(page.ok && page.body.data.map((v: { display_name: string }) => v.display_name)).toEqual(['V4', 'V3']);
      expect(page.ok && page.body.pagination).toEqual({ limit: 2, offset: 0, count: 2, has_more: true });
      const eligible = await svc.ok('vendors.list', c, { query: { limit: 25, offset: 0, is_1099_eligible: true } });
      expect(eligible.map((v: { display_name: string }) => v.display_name)).toEqual(['V4', 'V2']);
      const business = await svc.ok('vendors.list', c, { query: { limit: 25, offset: 0, vendor_type: 'business' } });
      expect(business.map((v: { display_name: string }) => v.display_name)).toEqual(['V4']);
    });
  });

  describe('bills', () => {
    it('posts on create (Dr 5000 / Cr 2000 on the issue date, lines with vendor and bill) and publishes before replying', async () => {
      const c = ctx();
      const v = await vendor(c);
      const before = await streamMessages();
      const b = await bill(c, v, 12_345);
      expect(validBill({ data: b, bill: b })).toBe(true);
      expect(b).toMatchObject({ status: 'posted', total_cents: 12_345, amount_paid_cents: 0, open_balance_cents: 12_345 });
      expect(b.expense_account_id).toBe(accountId(c.organizationId, 'test', '5000'));
      const lines = await entryLines(sql, 'bill', b.id, 'e.entry_date::text AS date, l.account_code, l.side, l.amount_cents::int AS amount, l.vendor_id, l.bill_id');
      expect(lines).toEqual([
        { date: '2026-01-10', account_code: '5000', side: 'debit', amount: 12_345, vendor_id: v, bill_id: b.id },
        { date: '2026-01-10', account_code: '2000', side: 'credit', amount: 12_345, vendor_id: v, bill_id: b.id },
      ]);
      expect(await streamMessages()).toBe(before + 1);
    });

    it('creates and books a bill alone in four round trips: BEGIN, the INSERT, one chained write (entry, outbox), COMMIT', async () => {
      const c = ctx();
      const v = await vendor(c);
      await bill(c, v, 100); // the scope's chart and chain head
      await withStatementLog(async ({ transactionOf }) => {
        await bill(c, v, 250);
        expect(transactionOf('bill_insert_of_vendors')).toEqual(['BEGIN', 'bill_insert_of_vendors', 'ledger_write_chained_outbox_insert', 'COMMIT']);
      });
    });

    it('creates the bills that arrive together in one statement; a group with a missing vendor or a repeat is split until each is alone', async () => {
      const c = ctx();
      const v = await vendor(c);
      const batch = jest.spyOn(INSERT_BILLS_BATCH, 'run');
      const primed = jest.spyOn(BooksLockCheck.prototype, 'prime');
      try {
        const bodies = [100, 200, 0, 300].map((cents) => billBody(v, cents)).concat(billBody(v, 400, { status: 'draft' }));
        const made = await Promise.all(bodies.map((body) => call('bills.create', c, { body })));
        expect(made.map((r) => (r.ok ? `${r.status} ${String(r.body.data.status)}` : r.error.code))).toEqual(['201 posted', '201 posted', '201 posted', '201 posted', '201 draft']);
        // They came in one group, stored by one statement (a group of one by the same statement).
        expect(Math.max(...batch.mock.calls.map(([, items]) => items.length))).toBeGreaterThan(1);
        const ids = made.map((r) => (r.ok ? String(r.body.data.id) : ''));
        const rows = (await sql(
          `SELECT b.id, b.status, b.journal_entry_id, b.posted_at IS NOT NULL AS posted, (SELECT count(*)::int FROM journal_entries e WHERE e.source_type = 'bill' AND e.source_id = b.id) AS entries
           FROM bills b WHERE b.id = ANY(?::uuid[])`,
          [`{${ids.join(',')}}`],
        )) as { id: string; status: string; journal_entry_id: string | null; posted: boolean; entries: number }[];
        const byId = new Map(rows.map((r) => [r.id, r]));
        expect(ids.map((id) => [byId.get(id)?.status, byId.get(id)?.posted, byId.get(id)?.entries])).toEqual([
          ['posted', true, 1],
          ['posted', true, 1],
          ['posted', true, 0],
          ['posted', true, 1],
          ['draft', false, 0],
        ]);
        for (const r of rows.filter((x) => x.entries === 1)) {
          expect(await sql(`SELECT id FROM journal_entries WHERE source_type = 'bill' AND source_id = ?`, [r.id])).toEqual([{ id: r.journal_entry_id }]);
        }
        // A group whose statement or work fails is split until the failing one is alone: every caller gets its own answer.
        batch.mockClear();
        const again = await Promise.all([
          call('bills.create', c, { body: bodies[0] }),
          call('bills.create', c, { body: billBody(randomUUID(), 100) }),
          call('bills.create', c, { body: billBody(v, 700) }),
          call('bills.create', c, { body: { ...bodies[1], bill_number: 'other' } }),
        ]);
        expect(again.map((r) => (r.ok ? `${r.status}${r.replayed ? ' replayed' : ''}` : `${r.error.code} ${r.error.details[0]?.field}`))).toEqual([
          '200 replayed',
          'not_found /vendor_id',
          '201',
          'conflict /external_bill_id',
        ]);
        const { n } = firstRow(await sql(`SELECT count(*)::int AS n FROM bills WHERE organization_id = ?`, [c.organizationId]));
        expect(n).toBe(6);
        // A group's statement reads the books' lock of its scopes too (once a scope has its row).
        primed.mockClear();
        const open = await Promise.all([100, 200, 300].map((cents) => call('bills.create', c, { body: billBody(v, cents) })));
        expect(open.map((r) => r.ok && r.status)).toEqual([201, 201, 201]);
        expect(primed.mock.calls.some(([scope, date]) => scope.organizationId === c.organizationId && date === null)).toBe(true);
        // Locked books: the group's statement reads the lock date, every bill is refused, none stored.
        await sql(`UPDATE books_lock SET lock_date = '2026-06-30', version = version + 1 WHERE organization_id = ?`, [c.organizationId]);
        primed.mockClear();
        const locked = await Promise.all([100, 200, 300].map((cents) => call('bills.create', c, { body: billBody(v, cents) })));
        expect(locked.map((r) => (r.ok ? 'ok' : `${r.error.code} ${r.error.details[0]?.field}`))).toEqual(Array(3).fill('period_locked /issue_date'));
        expect(primed.mock.calls.some(([scope, date]) => scope.organizationId === c.organizationId && date === '2026-06-30')).toBe(true);
        expect(firstRow(await sql(`SELECT count(*)::int AS n FROM bills WHERE organization_id = ?`, [c.organizationId])).n).toBe(9);
      } finally {
        batch.mockRestore();
        primed.mockRestore();
      }
    });

    it('creates the bills of a group in one statement once the scope has posted: replies as stored, a repeat and a missing vendor split out', async () => {
      const c = ctx();
      const v = await vendor(c);
      await call('bills.create', c, { body: billBody(v, 100) }); // a group of one: the scope's chart, chain head and lock row
      await withBatchSpies(INSERT_BILLS_BATCH, async ({ run }) => {
        const bodies = [250, 0, 999].map((cents) => billBody(v, cents)).concat(billBody(v, 400, { status: 'draft' }));
        const made = await Promise.all(bodies.map((body) => call('bills.create', c, { body })));
        expect(run.mock.calls.length).toBe(1);
        expect(made.map((r) => (r.ok ? `${r.status} ${String(r.body.data.status)}` : r.error.code))).toEqual(['201 posted', '201 posted', '201 posted', '201 draft']);
        for (const r of made) expect(r.ok && r.body.data).toEqual(await svc.ok('bills.get', c, { params: { id: r.ok ? String(r.body.data.id) : '' } }));
        const ids = made.map((r) => (r.ok ? String(r.body.data.id) : ''));
        const entries = (await sql(
          `SELECT (SELECT count(*)::int FROM journal_entries e WHERE e.source_type = 'bill' AND e.source_id = b.id AND e.id = b.journal_entry_id) AS n
           FROM bills b JOIN unnest(?::uuid[]) WITH ORDINALITY AS x (id, i) ON b.id = x.id ORDER BY x.i`,
          [`{${ids.join(',')}}`],
        )) as { n: number }[];
        expect(entries.map((e) => e.n)).toEqual([1, 0, 1, 0]);
        // A repeat of an external id fails the group's statement (nothing written); so does a vendor of
        // no scope (its work's 404): the group is split in halves, and each caller gets its own answer.
        run.mockClear();
        const again = await Promise.all([call('bills.create', c, { body: bodies[0] }), call('bills.create', c, { body: billBody(v, 700) })]);
        expect(again.map((r) => (r.ok ? `${r.status}${r.replayed ? ' replayed' : ''}` : r.error.code))).toEqual(['200 replayed', '201']);
        expect(run.mock.calls.map(([, items]) => items.length)).toEqual([2, 1, 1]); // the group's, then each half's
        const missing = await Promise.all([call('bills.create', c, { body: billBody(randomUUID(), 100) }), call('bills.create', c, { body: billBody(v, 800) })]);
        expect(missing.map((r) => (r.ok ? String(r.status) : `${r.error.code} ${r.error.details[0]?.field}`))).toEqual(['not_found /vendor_id', '201']);
        expect(firstRow(await sql(`SELECT count(*)::int AS n FROM bills WHERE organization_id = ?`, [c.organizationId])).n).toBe(7);
        expect(await verifyChain(svc.orm, { organizationId: c.organizationId, environment: c.environment })).toMatchObject({ firstBrokenEntryId: null });
      });
    });

    it('stores hostile but valid bills of a group in one statement exactly as sent: quotes, braces, NULL, far dates, the largest amount', async () => {
      const c = ctx();
      const v = await vendor(c);
      await call('bills.create', c, { body: billBody(v, 100) }); // the scope is known: the next group is one unit of work
      const odd = ['O\'Brien "q" \\ back', '{a,b}', 'NULL', 'é ☃ 𝄞'];
      const bodies = odd.map((text, i) =>
        billBody(v.toUpperCase(), i === 0 ? 100_000_000_000 : 1 + i, {
          bill_number: text,
          memo: text,
          issue_date: i % 2 ? '1900-01-01' : '9999-12-30',
          due_date: '9999-12-31',
          metadata: { [text]: text },
        }),
      );
      await withBatchSpies(INSERT_BILLS_BATCH, async ({ run }) => {
        const made = await Promise.all(bodies.map((body) => call('bills.create', c, { body })));
        expect(run.mock.calls.length).toBe(1);
        expect(made.map((r) => (r.ok ? r.status : r.error.code))).toEqual([201, 201, 201, 201]);
        for (const [i, r] of made.entries()) {
          const got = await svc.ok('bills.get', c, { params: { id: r.ok ? String(r.body.data.id) : '' } });
          expect(r.ok && r.body.data).toEqual(got);
          expect(got).toMatchObject({ bill_number: odd[i], memo: odd[i], vendor_id: v, issue_date: bodies[i]!.issue_date, metadata: { [odd[i]!]: odd[i] } });
        }
        const dates = await sql(
          `SELECT entry_date::text AS d FROM journal_entries e JOIN bills b ON b.journal_entry_id = e.id WHERE b.organization_id = ? AND b.memo IS NOT NULL ORDER BY d`,
          [c.organizationId],
        );
        expect(dates.map((r: { d: string }) => r.d)).toEqual(['1900-01-01', '1900-01-01', '9999-12-30', '9999-12-30']);
      });
    });

    it('stores bills made together exactly as sent: quotes, backslashes, braces, NULL, far dates, the largest amount; bad ones refused before the group', async () => {
      const c = ctx();
      const v = await vendor(c);
      const odd = ['O\'Brien "quoted" \\ back', '{a,b}', 'NULL', '', 'tab\tnew\nline', 'é ☃ 𝄞', ',"{}"\\'];
      const bodies = odd.map((text, i) =>
        billBody(v, 0, {
          bill_number: text || 'empty memo',
          memo: text,
          issue_date: i % 2 ? '1900-01-01' : '9999-12-30',
          due_date: '9999-12-31',
          line_items: [{ description: text || 'x', quantity: i === 0 ? 1 : 1.2345, unit_amount_cents: i === 0 ? 100_000_000_000 : 100 + i }],
          metadata: { [text || 'k']: text, nested: `{${text}}` },
          status: i === 1 ? 'draft' : 'posted',
        }),
      );
      const bad = [
        billBody(v, 100, { memo: 'nul \u0000 byte' }),
        billBody(v, 100, { memo: 'lone \ud800 surrogate' }),
        billBody(v, 100_000_000_001),
        billBody(v, 100, { issue_date: '1899-12-31' }),
        billBody(v, 100, { vendor_id: `urn:uuid:${v}` }),
      ];
      const batch = jest.spyOn(INSERT_BILLS_BATCH, 'run');
      const replies = await Promise.all([...bodies, ...bad].map((body) => call('bills.create', c, { body })));
      // The good ones went through the group's one INSERT (its array parameters), not one INSERT each.
      expect(Math.max(...batch.mock.calls.map(([, items]) => items.length))).toBeGreaterThan(1);
      batch.mockRestore();
      expect(replies.map((r) => (r.ok ? r.status : r.error.code))).toEqual([...bodies.map(() => 201), ...bad.map(() => 'validation_failed')]);
      for (const [i, r] of replies.slice(0, bodies.length).entries()) {
        const b = bodies[i]! as ReturnType<typeof billBody> & { memo: string; metadata: Record<string, string> };
        const got = await svc.ok('bills.get', c, { params: { id: r.ok ? String(r.body.data.id) : '' } });
        expect(got).toMatchObject({ bill_number: b.bill_number, memo: b.memo, issue_date: b.issue_date, due_date: b.due_date });
        // Metadata as documented: a key set to "" is left out on create.
        expect(got.metadata).toEqual(Object.fromEntries(Object.entries(b.metadata).filter(([, x]) => x !== '')));
        expect(got.line_items[0].description).toBe(b.line_items[0]!.description);
      }
      const first = await svc.ok('bills.get', c, { params: { id: replies[0]!.ok ? String(replies[0]!.body.data.id) : '' } });
      expect(first.total_cents).toBe(100_000_000_000);
      const { n } = firstRow(await sql(`SELECT count(*)::int AS n FROM bills WHERE organization_id = ?`, [c.organizationId]));
      expect(n).toBe(bodies.length);
    });

    it('keeps a draft off the books until POST /post; posting again is a replay with no second entry', async () => {
      const c = ctx();
      const v = await vendor(c);
      const draft = await bill(c, v, 500, { status: 'draft', expense_account_id: accountId(c.organizationId, 'test', '5200') });
      expect(draft).toMatchObject({ status: 'draft', open_balance_cents: 0, posted_at: null });
      expect(await sql(`SELECT id FROM journal_entries WHERE source_id = ?`, [draft.id])).toEqual([]);
      const posted = await call('bills.post', c, { params: { id: draft.id } });
      expect(posted.ok && [posted.body.data.status, posted.body.action, Boolean(posted.replayed)]).toEqual(['posted', { type: 'posted', status: 'completed' }, false]);
      const again = await call('bills.post', c, { params: { id: draft.id } });
      expect(again.ok && again.replayed).toBe(true);
      const entries = await sql(`SELECT l.account_code FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id WHERE e.source_id = ? AND l.side = 'debit'`, [draft.id]);
      expect(entries).toEqual([{ account_code: '5200' }]);
    });

    it('refuses a bad expense account, an unknown vendor and another scope', async () => {
      const c = ctx();
      const v = await vendor(c);
      const notExpense = await call('bills.create', c, { body: billBody(v, 100, { expense_account_id: accountId(c.organizationId, 'test', '1000') }) });
      expect(notExpense.ok ? 'ok' : [notExpense.error.code, notExpense.error.details[0]?.field]).toEqual(['validation_failed', '/expense_account_id']);
      const foreign = await call('bills.create', c, { body: billBody(v, 100, { expense_account_id: accountId(randomUUID(), 'test', '5000') }) });
      expect(outcome(foreign)).toBe('not_found');
      const noVendor = await call('bills.create', c, { body: billBody(randomUUID(), 100) });
      expect(noVendor.ok ? 'ok' : noVendor.error.details[0]).toMatchObject({ field: '/vendor_id', issue: 'not_found' });
      const otherOrg = await call('bills.create', ctx(), { body: billBody(v, 100) });
      expect(outcome(otherOrg)).toBe('not_found');
    });

    it('a bill in a locked period names a missing vendor first (404), then the lock (409); nothing stored', async () => {
      const c = ctx();
      const v = await vendor(c);
      await sql(`INSERT INTO books_lock (organization_id, environment, lock_date, version) VALUES (?, 'test', '2099-12-31', 1)`, [c.organizationId]);
      const noVendor = await call('bills.create', c, { body: billBody(randomUUID(), 100) });
      expect(noVendor.ok ? 'ok' : [noVendor.error.code, noVendor.error.details[0]?.field]).toEqual(['not_found', '/vendor_id']);
      const locked = await call('bills.create', c, { body: billBody(v, 100) });
      expect(locked.ok ? 'ok' : [locked.error.code, locked.error.details[0]?.field]).toEqual(['period_locked', '/issue_date']);
      const draft = await call('bills.create', c, { body: billBody(randomUUID(), 100, { status: 'draft' }) });
      expect(draft.ok ? 'ok' : [draft.error.code, draft.error.details[0]?.field]).toEqual(['not_found', '/vendor_id']);
      expect(await sql(`SELECT id FROM bills WHERE organization_id = ?`, [c.organizationId])).toEqual([]);
    });

    it('reverses with a mirror entry dated today, keeps the original, and refuses a bill with payments', async () => {
      const c = ctx();
      const v = await vendor(c);
      const b = await bill(c, v, 1000);
      const paid = await payOk(c, v, [{ bill_id: b.id, amount_cents: 400 }]);
      const refused = await call('bills.reverse', c, { params: { id: b.id }, body: { reversal_reason: 'dup' } });
      expect(refused.ok ? 'ok' : [refused.error.code, refused.error.details[0]?.issue]).toEqual(['conflict', 'bill_has_payments']);
      await svc.ok('vendor_payments.reverse', c, { params: { id: paid.id }, body: { reversal_reason: 'wrong bill' } });
      expect(await billRow(b.id)).toEqual({ status: 'posted', paid: 0, total: 1000 });
      const reversed = await call('bills.reverse', c, { params: { id: b.id }, body: { reversal_reason: 'dup' } });
      expect(reversed.ok && reversed.body.data).toMatchObject({ status: 'reversed', open_balance_cents: 0, reversal_reason: 'dup' });
      expect(reversed.ok && reversed.body.action).toEqual({ type: 'reversed', status: 'completed' });
      const entries = await sql(`SELECT entry_date::text AS date, reverses_entry_id FROM journal_entries WHERE source_id = ? ORDER BY created_at`, [b.id]);
      expect(entries).toHaveLength(2);
      expect(entries[1]).toMatchObject({ date: new Date().toISOString().slice(0, 10) });
      expect(entries[1]?.reverses_entry_id).toBeTruthy();
      const again = await call('bills.reverse', c, { params: { id: b.id }, body: { reversal_reason: 'again' } });
      expect(again.ok && [again.replayed, again.body.data.reversal_reason]).toEqual([true, 'dup']);
      expect(outcome(await call('bills.post', c, { params: { id: b.id } }))).toBe('conflict');
      const draft = await bill(c, v, 10, { status: 'draft' });
      expect(outcome(await call('bills.reverse', c, { params: { id: draft.id }, body: { reversal_reason: 'x' } }))).toBe('conflict');
    });

    it('lists by status, vendor and issue date range', async () => {
      const c = ctx();
      const [v1, v2] = [await vendor(c), await vendor(c)];
      const a = await bill(c, v1, 100, { issue_date: '2026-01-01', due_date: '2026-01-31' });
      const b = await bill(c, v1, 100, { issue_date: '2026-02-01', due_date: '2026-02-28', status: 'draft' });
      const d = await bill(c, v2, 100, { issue_date: '2026-03-01', due_date: '2026-03-31' });
      const ids = async (query: Record<string, unknown>) => (await svc.ok('bills.list', c, { query: { limit: 25, offset: 0, ...query } })).map((x: { id: string }) => x.id);
      expect(await ids({})).toEqual([d.id, b.id, a.id]);
      expect(await ids({ status: 'draft' })).toEqual([b.id]);
      expect(await ids({ vendor_id: v1 })).toEqual([b.id, a.id]);
      expect(await ids({ issue_date_from: '2026-01-15', issue_date_to: '2026-03-01' })).toEqual([d.id, b.id]);
      expect(await ids({ issue_date_to: '2026-01-31', vendor_id: v1 })).toEqual([a.id]);
    });
  });

  describe('vendor payments', () => {
    it('posts on create (Dr 2000 per bill / Cr the cash account), lowers open balances; reverse restores them', async () => {
      const c = ctx();
      const v = await vendor(c);
      const [b1, b2] = [await bill(c, v, 1000), await bill(c, v, 500)];
      const bank = accountId(c.organizationId, 'test', '1010');
      const r = await pay(
        c,
        v,
        [
          { bill_id: b1.id, amount_cents: 600 },
          { bill_id: b2.id, amount_cents: 500 },
        ],
        { cash_account_id: bank },
      );
      expect(r.ok && r.status).toBe(201);
      expect(validPayment(r.ok && r.body)).toBe(true);
      const p = r.ok && r.body.data;
      expect(p).toMatchObject({ status: 'posted', amount_cents: 1100, cash_account_id: bank });
      expect(await billRow(b1.id)).toEqual({ status: 'posted', paid: 600, total: 1000 });
      expect((await svc.ok('bills.get', c, { params: { id: b2.id } })).open_balance_cents).toBe(0);
      const lines = await entryLines(sql, 'vendor_payment', p.id, 'l.account_code, l.side, l.amount_cents::int AS amount, l.bill_id');
      expect(lines).toEqual([
        { account_code: '2000', side: 'debit', amount: 600, bill_id: b1.id },
        { account_code: '2000', side: 'debit', amount: 500, bill_id: b2.id },
        { account_code: '1010', side: 'credit', amount: 1100, bill_id: null },
      ]);
      const reversed = await svc.ok('vendor_payments.reverse', c, { params: { id: p.id }, body: { reversal_reason: 'bounced' } });
      expect(reversed).toMatchObject({ status: 'reversed', reversal_reason: 'bounced' });
      expect(await billRow(b1.id)).toEqual({ status: 'posted', paid: 0, total: 1000 });
      expect(await billRow(b2.id)).toEqual({ status: 'posted', paid: 0, total: 500 });
      const again = await call('vendor_payments.reverse', c, { params: { id: p.id }, body: { reversal_reason: 'bounced' } });
      expect(again.ok && again.replayed).toBe(true);
      expect(outcome(await call('vendor_payments.post', c, { params: { id: p.id } }))).toBe('conflict');
    });

    it('defers a ready payment to POST /post, which checks the bills as they are then', async () => {
      const c = ctx();
      const v = await vendor(c);
      const b = await bill(c, v, 300, { status: 'draft' });
      const ready = await payOk(c, v, [{ bill_id: b.id, amount_cents: 300 }], { status: 'ready' });
      expect(ready.status).toBe('ready');
      expect(outcome(await call('vendor_payments.reverse', c, { params: { id: ready.id }, body: { reversal_reason: 'x' } }))).toBe('conflict');
      const early = await call('vendor_payments.post', c, { params: { id: ready.id } });
      expect(early.ok ? 'ok' : early.error.details[0]?.issue).toBe('bill_draft');
      await svc.ok('bills.post', c, { params: { id: b.id } });
      const posted = await call('vendor_payments.post', c, { params: { id: ready.id } });
      expect(posted.ok && [posted.body.data.status, posted.body.action.type]).toEqual(['posted', 'posted']);
      expect((await call('vendor_payments.post', c, { params: { id: ready.id } })).ok).toBe(true);
      expect(await billRow(b.id)).toEqual({ status: 'posted', paid: 300, total: 300 });
    });

    it('enforces every allocation rule', async () => {
      const c = ctx();
      const [v, other] = [await vendor(c), await vendor(c)];
      const b = await bill(c, v, 1000);
      const theirs = await bill(c, other, 1000);
      const issue = async (allocations: { bill_id: string; amount_cents: number }[], over: Record<string, unknown> = {}) => {
        const r = await pay(c, v, allocations, over);
        return r.ok ? 'ok' : `${r.error.code}:${r.error.details[0]?.issue}`;
      };
      expect(await issue([{ bill_id: b.id, amount_cents: 1001 }])).toBe('conflict:exceeds_open_balance');
      expect(await issue([{ bill_id: theirs.id, amount_cents: 1 }])).toBe('validation_failed:vendor_mismatch');
      expect(await issue([{ bill_id: randomUUID(), amount_cents: 1 }])).toBe('not_found:not_found');
      expect(await issue([{ bill_id: b.id, amount_cents: 5 }], { amount_cents: 6 })).toBe('validation_failed:allocation_sum_mismatch');
      expect(await issue(Array.from({ length: 100 }, () => ({ bill_id: b.id, amount_cents: 1 })))).toBe('validation_failed:duplicate_bill');
      expect(await issue([{ bill_id: b.id, amount_cents: 1 }], { cash_account_id: accountId(c.organizationId, 'test', '2000') })).toBe('validation_failed:invalid_account_type');
      const unknownVendor = await pay(c, randomUUID(), [{ bill_id: b.id, amount_cents: 1 }]);
      expect(unknownVendor.ok ? 'ok' : unknownVendor.error.details[0]).toMatchObject({ field: '/vendor_id', issue: 'not_found' });
      const draft = await bill(c, v, 10, { status: 'draft' });
      expect(await issue([{ bill_id: draft.id, amount_cents: 1 }])).toBe('conflict:bill_draft');
      // None of the refusals wrote anything.
      expect(await billRow(b.id)).toEqual({ status: 'posted', paid: 0, total: 1000 });
      expect(await sql(`SELECT id FROM vendor_payments WHERE vendor_id = ?`, [v])).toEqual([]);
    });

    it('is retry-safe on external_vendor_payment_id, also when retries race', async () => {
      const c = ctx();
      const v = await vendor(c);
      const b = await bill(c, v, 1000);
      const external = randomUUID();
      const replies = await Promise.all(Array.from({ length: 10 }, () => pay(c, v, [{ bill_id: b.id, amount_cents: 100 }], { external_vendor_payment_id: external })));
      expect(replies.map((r) => (r.ok ? r.status : r.error.code)).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
      expect(await billRow(b.id)).toEqual({ status: 'posted', paid: 100, total: 1000 });
      const different = await pay(c, v, [{ bill_id: b.id, amount_cents: 200 }], { external_vendor_payment_id: external });
      expect(different.ok ? 'ok' : different.error.details[0]?.issue).toBe('already_used');
    });
  });

  describe('concurrency', () => {
    it('never over-allocates a bill when 25 payments race for it', async () => {
      const c = ctx();
      const v = await vendor(c);
      const b = await bill(c, v, 1000);
      const replies = await Promise.all(Array.from({ length: 25 }, () => pay(c, v, [{ bill_id: b.id, amount_cents: 100 }])));
      const outcomes = replies.map(outcome);
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(10);
      expect(outcomes.filter((o) => o === 'conflict')).toHaveLength(15);
      expect(await billRow(b.id)).toEqual({ status: 'posted', paid: 1000, total: 1000 });
      const { n } = firstRow(await sql(`SELECT count(*)::int AS n FROM vendor_payments WHERE vendor_id = ? AND status = 'posted'`, [v]));
      expect(n).toBe(10);
    });

    it('never deadlocks nor over-allocates when 24 payments race over two bills in opposite orders', async () => {
      const c = ctx();
      const v = await vendor(c);
      const [b1, b2] = [await bill(c, v, 500), await bill(c, v, 500)];
      const replies = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          pay(
            c,
            v,
            i % 2
              ? [
                  { bill_id: b1.id, amount_cents: 50 },
                  { bill_id: b2.id, amount_cents: 50 },
                ]
              : [
                  { bill_id: b2.id, amount_cents: 50 },
                  { bill_id: b1.id, amount_cents: 50 },
                ],
          ),
        ),
      );
      expect(replies.map(outcome).filter((o) => o === 'ok')).toHaveLength(10);
      expect(await billRow(b1.id)).toEqual({ status: 'posted', paid: 500, total: 500 });
      expect(await billRow(b2.id)).toEqual({ status: 'posted', paid: 500, total: 500 });
    });

    it('never leaves an allocation on a reversed bill when a reversal races 20 payments', async () => {
      for (let round = 0; round < 3; round++) {
        const c = ctx();
        const v = await vendor(c);
        const b = await bill(c, v, 10_000);
        const payments = Array.from({ length: 20 }, () => pay(c, v, [{ bill_id: b.id, amount_cents: 100 }]));
        const reversal = call('bills.reverse', c, { params: { id: b.id }, body: { reversal_reason: 'race' } });
        const [reversed, ...paid] = await Promise.all([reversal, ...payments]);
        const okPayments = paid.filter((r) => r.ok).length;
        const row = await billRow(b.id);
        const posted = firstRow(await sql(`SELECT count(*)::int AS n FROM vendor_payments WHERE vendor_id = ? AND status = 'posted'`, [v])).n;
        if (reversed.ok) {
          // The reversal went first: no payment landed, the bill carries none.
          expect({ row, okPayments, posted }).toEqual({ row: { status: 'reversed', paid: 0, total: 10_000 }, okPayments: 0, posted: 0 });
          expect(paid.every((r) => !r.ok && r.error.details[0]?.issue === 'bill_reversed')).toBe(true);
        } else {
          expect(reversed.error.details[0]?.issue).toBe('bill_has_payments');
          expect(row).toEqual({ status: 'posted', paid: okPayments * 100, total: 10_000 });
          expect(posted).toBe(okPayments);
        }
      }
    });
  });

  it('heals a crash between commit and publish: the relay publishes exactly one message per row', async () => {
    const c = ctx();
    const v = await vendor(c);
    await expectRelayHeals(
      svc,
      async () => {
        const b = await bill(c, v, 777);
        await payOk(c, v, [{ bill_id: b.id, amount_cents: 777 }]);
      },
      2,
    );
  });

  it('keeps debits = credits and A/P = open balances of posted bills over random sequences of calls (property)', async () => {
    type Cmd =
      | { k: 'bill'; cents: number; draft: boolean }
      | { k: 'postBill' | 'reverseBill' | 'postPayment' | 'reversePayment'; i: number }
      | { k: 'pay'; picks: number[]; cents: number[]; ready: boolean };
    const cmd: fc.Arbitrary<Cmd> = fc.oneof(
      fc.record({ k: fc.constant('bill' as const), cents: fc.integer({ min: 0, max: 5000 }), draft: fc.boolean() }),
      fc.record({ k: fc.constantFrom('postBill' as const, 'reverseBill' as const, 'postPayment' as const, 'reversePayment' as const), i: fc.nat(50) }),
      fc.record({
        k: fc.constant('pay' as const),
        picks: fc.array(fc.nat(50), { minLength: 1, maxLength: 3 }),
        cents: fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 3, maxLength: 3 }),
        ready: fc.boolean(),
      }),
    );
    const pick = <T>(list: T[], i: number): T | undefined => (list.length ? list[i % list.length] : undefined);
    await fc.assert(
      fc.asyncProperty(fc.array(cmd, { minLength: 5, maxLength: 25 }), async (cmds) => {
        const c: TrustedContext = ctx();
        const v = await vendor(c);
        const bills: string[] = [];
        const payments: string[] = [];
        for (const m of cmds) {
          if (m.k === 'bill') bills.push((await bill(c, v, m.cents, m.draft ? { status: 'draft' } : {})).id);
          else if (m.k === 'postBill' || m.k === 'reverseBill') {
            const id = pick(bills, m.i);
            if (id) await call(m.k === 'postBill' ? 'bills.post' : 'bills.reverse', c, { params: { id }, body: m.k === 'reverseBill' ? { reversal_reason: 'p' } : {} });
          } else if (m.k === 'postPayment' || m.k === 'reversePayment') {
            const id = pick(payments, m.i);
            if (id)
              await call(m.k === 'postPayment' ? 'vendor_payments.post' : 'vendor_payments.reverse', c, {
                params: { id },
                body: m.k === 'reversePayment' ? { reversal_reason: 'p' } : {},
              });
          } else if (m.k === 'pay') {
            const ids = [...new Set(m.picks.map((i) => pick(bills, i)).filter((x): x is string => Boolean(x)))];
            if (!ids.length) continue;
            const r = await pay(
              c,
              v,
              ids.map((bill_id, j) => ({ bill_id, amount_cents: m.cents[j]! })),
              m.ready ? { status: 'ready' } : {},
            );
            if (r.ok) payments.push(r.body.data.id);
            else expect(['conflict', 'validation_failed']).toContain(r.error.code);
          }
        }
        const t = firstRow(
          await sql(
            `SELECT coalesce(sum(amount_cents) FILTER (WHERE side = 'debit'), 0)::bigint AS debits,
                    coalesce(sum(amount_cents) FILTER (WHERE side = 'credit'), 0)::bigint AS credits,
                    coalesce(sum(CASE WHEN account_code = '2000' THEN CASE side WHEN 'credit' THEN amount_cents ELSE -amount_cents END END), 0)::bigint AS ap
               FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id WHERE e.organization_id = ?`,
            [c.organizationId],
          ),
        );
        const open = firstRow(
          await sql(`SELECT coalesce(sum(total_cents - paid_cents), 0)::bigint AS open FROM bills WHERE organization_id = ? AND status = 'posted'`, [c.organizationId]),
        );
        expect(t.debits).toBe(t.credits);
        expect(t.ap).toBe(open.open);
        // Each bill's paid amount is what its posted payments allocate to it.
        const drift = await sql(
          `SELECT b.id FROM bills b WHERE b.organization_id = ? AND b.paid_cents <> coalesce((
             SELECT sum((a->>'amount_cents')::bigint) FROM vendor_payments p, jsonb_array_elements(p.allocations) a
              WHERE p.organization_id = b.organization_id AND p.status = 'posted' AND a->>'bill_id' = b.id::text), 0)`,
          [c.organizationId],
        );
        expect(drift).toEqual([]);
      }),
      { numRuns: 20, seed: 20261123 },
    );
  });

  it('wrote only events of the catalogue: every outbox row of this file validates against EventMap', async () => {
    const rows = (await sql(`SELECT subject, payload FROM outbox ORDER BY seq`)) as { subject: string; payload: unknown }[];
    const types = new Set(rows.map((r) => r.subject.split('.events.')[1]?.replace(/^(outbound|reference)\./, '')));
    for (const t of ['posting.payables', 'vendor.created', 'vendor.updated']) expect(types).toContain(t);
    const sources = new Set(rows.filter((r) => r.subject.includes('.events.posting.')).map((r) => (r.payload as { source: { type: string } }).source.type));
    expect([...sources].sort()).toEqual(['bill', 'bill_reversal', 'vendor_payment', 'vendor_payment_reversal']);
    expect(catalogueErrors(prefix, rows)).toEqual([]);
  });
});
