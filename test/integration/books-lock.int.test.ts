import { randomBytes, randomUUID } from 'node:crypto';
import type { JetStreamManager } from 'nats';
import { BOOKS_LOCK_CONSUMERS, type RpcReply, type TrustedContext, eventsStreamName, referenceSubject } from '@acct/contracts';
import { encodeJson } from '@acct/kit';
import { todayUtc } from '@acct/ledger';
import { type TestService, ctx, firstRow, freshDatabase, serviceDefinition, startServiceForTest, waitFor } from '@acct/testing';

/**
 * The books' lock date (API-DECISIONS §12) against real Postgres and NATS, with receivables (the
 * owner) and payables (a copy) on one bus: every posting path refused on or before the lock date
 * and allowed after it, nothing stored on a refusal, inbound events stored failed, the history,
 * PUT waiting for payables' copy (503 without it, retry-safe), extreme dates, and a race of postings with PUT.
 */
describe('books lock date across receivables and payables', () => {
  let rec: TestService;
  let pay: TestService;
  type Ctx = TrustedContext;
  const recv = () => serviceDefinition('receivables', { config: { processorSecretKey: randomBytes(32) } });

  beforeAll(async () => {
    rec = await startServiceForTest(recv());
    // With its workers: the books_lock.updated feed is what brings the lock date to payables' copy.
    pay = await startServiceForTest(serviceDefinition('payables'), { nc: rec.nc, prefix: rec.prefix, workers: true });
  });
  afterAll(async () => {
    await pay?.stop();
    await rec?.stop();
  });

  const put = (c: Ctx, lock_date: string | null, svc: TestService = rec) => svc.call('settings.books_lock.put', c, { body: { lock_date } });
  const putOk = async (c: Ctx, lock_date: string | null) => {
    const r = await put(c, lock_date);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.body.data as { lock_date: string | null; changes: Record<string, unknown>[] };
  };
  const outcome = (r: RpcReply<any>): string => (r.ok ? String(r.status) : `${r.error.code}:${r.error.details[0]?.issue ?? ''}`);
  const LOCKED = 'period_locked:period_locked';

  /** What a refused write must leave unchanged: the scope's entries and outbox rows in both services. */
  const footprint = async (c: Ctx) => {
    const q = async (svc: TestService) => ({
      entries: Number(firstRow(await svc.sql('SELECT count(*) AS n FROM journal_entries WHERE organization_id = ?', [c.organizationId])).n),
      outbox: Number(firstRow(await svc.sql(`SELECT count(*) AS n FROM outbox WHERE payload->>'organization_id' = ?`, [c.organizationId])).n),
    });
    return { receivables: await q(rec), payables: await q(pay) };
  };

  const customer = async (c: Ctx) => (await rec.ok('customers.create', c, { body: { external_customer_id: randomUUID(), name: 'C' } })).id as string;
  const draftInvoice = async (c: Ctx, issue: string, cents = 1000) =>
    (
      await rec.ok('invoices.create', c, {
        body: {
          external_invoice_id: randomUUID(),
          customer_id: await customer(c),
          invoice_number: 'L-1',
          issue_date: issue,
          due_date: issue,
          line_items: [{ description: 'x', quantity: 1, unit_amount_cents: cents }],
        },
      })
    ).id as string;
  const postInvoice = (c: Ctx, id: string) => rec.call('invoices.post', c, { params: { id } });
  const openInvoice = async (c: Ctx, issue: string, cents = 1000) => {
    const id = await draftInvoice(c, issue, cents);
    await rec.ok('invoices.post', c, { params: { id } });
    return id;
  };
  const payInvoice = (c: Ctx, invoiceId: string, receivedAt: string, over: Record<string, unknown> = {}) =>
    rec.call('payments.create', c, { body: { external_payment_id: randomUUID(), invoice_id: invoiceId, amount_cents: 100, received_at: receivedAt, ...over } });
  const invoiceRow = async (id: string) => firstRow(await rec.sql('SELECT status, paid_cents::int AS paid FROM invoices WHERE id = ?', [id]));

  const vendor = async (c: Ctx) => (await pay.ok('vendors.create', c, { body: { external_vendor_id: randomUUID(), display_name: 'V' } })).id as string;
  const billBody = (vendorId: string, issue: string, over: Record<string, unknown> = {}) => ({
    external_bill_id: randomUUID(),
    vendor_id: vendorId,
    bill_number: 'B',
    issue_date: issue,
    due_date: issue,
    line_items: [{ description: 'x', quantity: 1, unit_amount_cents: 5000 }],
    ...over,
  });
  const vpBody = (vendorId: string, billId: string, date: string, over: Record<string, unknown> = {}) => ({
    external_vendor_payment_id: randomUUID(),
    vendor_id: vendorId,
    amount_cents: 1000,
    payment_date: date,
    allocations: [{ bill_id: billId, amount_cents: 1000 }],
    ...over,
  });

  it('starts with no lock and no changes, records each change (who, when, old, new) newest first, and a repeat records nothing', async () => {
    const c = ctx();
    expect(await rec.ok('settings.books_lock.get', c)).toEqual({ lock_date: null, changes: [] });
    const first = await putOk(c, '2026-01-31');
    expect(first.lock_date).toBe('2026-01-31');
    expect(first.changes).toEqual([
      { id: expect.any(String), changed_at: expect.any(String), api_key_id: c.apiKeyId, connected_app_id: c.connectedAppId, previous_lock_date: null, lock_date: '2026-01-31' },
    ]);
    // The same date again (a retried PUT): nothing new recorded.
    expect((await putOk(c, '2026-01-31')).changes).toHaveLength(1);
    const other = { ...c, apiKeyId: randomUUID(), connectedAppId: randomUUID() };
    await putOk(other, '2025-12-31'); // earlier: allowed
    const cleared = await putOk(c, null); // cleared: allowed
    expect(cleared.lock_date).toBeNull();
    expect(cleared.changes.map((x) => [x.previous_lock_date, x.lock_date, x.connected_app_id])).toEqual([
      ['2025-12-31', null, c.connectedAppId],
      ['2026-01-31', '2025-12-31', other.connectedAppId],
      [null, '2026-01-31', c.connectedAppId],
    ]);
    expect(await rec.ok('settings.books_lock.get', c)).toEqual(cleared);
    // Payables' copy has the last version; the live environment of the same organization has none.
    expect(firstRow(await pay.sql('SELECT lock_date, version::int AS version FROM books_lock WHERE organization_id = ? AND environment = ?', [c.organizationId, 'test']))).toEqual({
      lock_date: null,
      version: 3,
    });
    expect(await rec.ok('settings.books_lock.get', { ...c, environment: 'live' })).toEqual({ lock_date: null, changes: [] });
    // Each change is a books_lock.updated reference event for the copies.
    const events = await rec.sql(`SELECT payload->'data' AS data FROM outbox WHERE subject = ? AND payload->>'organization_id' = ? ORDER BY seq`, [
      `${rec.prefix}.events.reference.books_lock.updated`,
      c.organizationId,
    ]);
    expect(events.map((e) => e.data)).toEqual([
      { version: 1, lock_date: '2026-01-31' },
      { version: 2, lock_date: '2025-12-31' },
      { version: 3, lock_date: null },
    ]);
  });

  it('receivables: invoice post, payment, payout and void are refused on or before the lock date (nothing stored) and allowed after it', async () => {
    const c = ctx();
    const open = await openInvoice(c, '2026-01-20');
    const toVoid = await openInvoice(c, '2026-01-20');
    const onLock = await draftInvoice(c, '2026-01-31');
    const zero = await draftInvoice(c, '2026-01-31', 0);
    const after = await draftInvoice(c, '2026-02-01');
    await putOk(c, '2026-01-31');
    const before = await footprint(c);

    expect(outcome(await postInvoice(c, onLock))).toBe(LOCKED);
    expect(outcome(await postInvoice(c, zero))).toBe(LOCKED); // no entry, but dated in the locked period
    expect(outcome(await payInvoice(c, open, '2026-01-31T23:59:59Z'))).toBe(LOCKED);
    const payout = (date: string) =>
      rec.call('payouts.create', c, { body: { external_payout_id: randomUUID(), processor: 'stripe', payout_date: date, gross_cents: 1000, fee_cents: 30, net_cents: 970 } });
    expect(outcome(await payout('2026-01-15'))).toBe(LOCKED);
    expect(outcome(await rec.call('invoices.void', c, { params: { id: toVoid }, body: { void_date: '2026-01-31' } }))).toBe(LOCKED);
    const refused = await payInvoice(c, open, '2026-01-10');
    expect(!refused.ok && refused.error).toMatchObject({ code: 'period_locked', details: [{ field: '/received_at', issue: 'period_locked' }] });

    expect(await footprint(c)).toEqual(before);
    expect(await invoiceRow(onLock)).toEqual({ status: 'draft', paid: 0 });
    expect(await invoiceRow(open)).toEqual({ status: 'open', paid: 0 });
    expect(await invoiceRow(toVoid)).toEqual({ status: 'open', paid: 0 });
    expect(await rec.sql('SELECT id FROM payments WHERE organization_id = ?', [c.organizationId])).toEqual([]);
    expect(await rec.sql('SELECT id FROM processor_payouts WHERE organization_id = ?', [c.organizationId])).toEqual([]);

    expect(outcome(await postInvoice(c, after))).toBe('200');
    expect(outcome(await payInvoice(c, open, '2026-02-01T00:00:00Z'))).toBe('201');
    expect(outcome(await payout('2026-02-01'))).toBe('201');
    expect(outcome(await rec.call('invoices.void', c, { params: { id: toVoid }, body: { void_date: '2026-02-01' } }))).toBe('200');
    // A draft's void books nothing, so the lock does not hold it.
    expect(outcome(await rec.call('invoices.void', c, { params: { id: onLock }, body: { void_date: '2026-01-31' } }))).toBe('200');
  });

  it('inbound events that would post into the locked period are stored failed with period_locked, and post nothing', async () => {
    const c = ctx();
    const external = randomUUID();
    const inv = await rec.ok('invoices.create', c, {
      body: {
        external_invoice_id: external,
        customer_id: await customer(c),
        invoice_number: 'E-1',
        issue_date: '2026-01-05',
        due_date: '2026-01-05',
        line_items: [{ description: 'x', quantity: 1, unit_amount_cents: 1000 }],
      },
    });
    await rec.ok('invoices.post', c, { params: { id: inv.id } });
    await putOk(c, '2026-01-31');
    const before = await footprint(c);
    const received = (at: string, paymentId = randomUUID()) =>
      rec.ok('events.create', c, {
        body: {
          external_event_id: randomUUID(),
          event_type: 'payment.received',
          payload: { external_payment_id: paymentId, external_invoice_id: external, amount_cents: 400, received_at: at },
        },
      });
    const failed = await received('2026-01-31');
    expect(failed).toMatchObject({ status: 'failed', details: [{ field: '/payload/received_at', issue: 'period_locked' }] });
    expect(await invoiceRow(inv.id)).toEqual({ status: 'open', paid: 0 });
    const after = await footprint(c);
    expect(after.receivables.entries).toBe(before.receivables.entries);
    expect(after.receivables.outbox).toBe(before.receivables.outbox); // an event stores its row, emits nothing

    // A payment after the lock posts; its refund (dated today) fails while today is locked.
    const paymentId = randomUUID();
    expect(await received('2026-02-01', paymentId)).toMatchObject({ status: 'processed' });
    await putOk(c, todayUtc());
    const mid = await footprint(c);
    const refund = await rec.ok('events.create', c, {
      body: { external_event_id: randomUUID(), event_type: 'payment.refunded', payload: { external_payment_id: paymentId } },
    });
    expect(refund).toMatchObject({ status: 'failed', details: [{ issue: 'period_locked' }] });
    expect(await invoiceRow(inv.id)).toEqual({ status: 'partially_paid', paid: 400 });
    expect((await footprint(c)).receivables.entries).toBe(mid.receivables.entries);
  });

  it('payables: bill create and post, vendor payment create and post, and reversals are refused on or before the lock date and allowed after it', async () => {
    const c = ctx();
    const v = await vendor(c);
    const open = (await pay.ok('bills.create', c, { body: billBody(v, '2026-01-10') })).id as string;
    const paid = (await pay.ok('bills.create', c, { body: billBody(v, '2026-01-10') })).id as string;
    const vp = (await pay.ok('vendor_payments.create', c, { body: vpBody(v, paid, '2026-01-12') })).id as string;
    const draft = (await pay.ok('bills.create', c, { body: billBody(v, '2026-01-20', { status: 'draft' }) })).id as string;
    const ready = (await pay.ok('vendor_payments.create', c, { body: vpBody(v, open, '2026-01-31', { status: 'ready' }) })).id as string;
    await putOk(c, '2026-01-31');
    const before = await footprint(c);
    const created = billBody(v, '2026-01-31');

    expect(outcome(await pay.call('bills.create', c, { body: created }))).toBe(LOCKED);
    expect(outcome(await pay.call('bills.create', c, { body: billBody(v, '2026-01-31', { line_items: [{ description: 'x', quantity: 1, unit_amount_cents: 0 }] }) }))).toBe(LOCKED);
    expect(outcome(await pay.call('bills.post', c, { params: { id: draft } }))).toBe(LOCKED);
    expect(outcome(await pay.call('vendor_payments.create', c, { body: vpBody(v, open, '2026-01-31') }))).toBe(LOCKED);
    expect(outcome(await pay.call('vendor_payments.post', c, { params: { id: ready } }))).toBe(LOCKED);

    expect(await footprint(c)).toEqual(before);
    expect(await pay.sql('SELECT id FROM bills WHERE external_bill_id = ?', [created.external_bill_id])).toEqual([]);
    expect(firstRow(await pay.sql('SELECT status, paid_cents::int AS paid FROM bills WHERE id = ?', [draft]))).toEqual({ status: 'draft', paid: 0 });
    expect(firstRow(await pay.sql('SELECT status FROM vendor_payments WHERE id = ?', [ready]))).toEqual({ status: 'ready' });
    expect(firstRow(await pay.sql('SELECT paid_cents::int AS paid FROM bills WHERE id = ?', [open]))).toEqual({ paid: 0 });

    // Reversals are dated today: refused while today is locked.
    await putOk(c, todayUtc());
    const locked = await footprint(c);
    expect(outcome(await pay.call('vendor_payments.reverse', c, { params: { id: vp }, body: { reversal_reason: 'x' } }))).toBe(LOCKED);
    expect(outcome(await pay.call('bills.reverse', c, { params: { id: open }, body: { reversal_reason: 'x' } }))).toBe(LOCKED);
    expect(await footprint(c)).toEqual(locked);

    await putOk(c, '2026-01-15'); // moved earlier: the dates after it post again
    expect(outcome(await pay.call('bills.create', c, { body: created }))).toBe('201');
    expect(outcome(await pay.call('bills.post', c, { params: { id: draft } }))).toBe('200');
    expect(outcome(await pay.call('vendor_payments.post', c, { params: { id: ready } }))).toBe('200');
    expect(outcome(await pay.call('vendor_payments.reverse', c, { params: { id: vp }, body: { reversal_reason: 'x' } }))).toBe('200');
  });

  it('takes the extreme dates: 1900-01-01 locks that day only, 9999-12-31 locks every date', async () => {
    const c = ctx();
    const first = await draftInvoice(c, '1900-01-01');
    const second = await draftInvoice(c, '1900-01-02');
    const last = await draftInvoice(c, '9999-12-31');
    await putOk(c, '1900-01-01');
    expect(outcome(await postInvoice(c, first))).toBe(LOCKED);
    expect(outcome(await postInvoice(c, second))).toBe('200');
    expect((await putOk(c, '9999-12-31')).lock_date).toBe('9999-12-31');
    expect(outcome(await postInvoice(c, last))).toBe(LOCKED);
    const v = await vendor(c);
    expect(outcome(await pay.call('bills.create', c, { body: billBody(v, '9999-12-31') }))).toBe(LOCKED);
    await putOk(c, null);
    expect(outcome(await postInvoice(c, last))).toBe('200');
  });

  it('answers 503 when payables cannot be asked, keeps the one change, and the same PUT again answers 200 once its copy has it, without a second change', async () => {
    const alone = await startServiceForTest(recv());
    try {
      const c = ctx();
      const r = await put(c, '2026-03-31', alone);
      expect(outcome(r)).toBe('service_unavailable:');
      expect((await alone.ok('settings.books_lock.get', c)).changes).toHaveLength(1);
      const late = await startServiceForTest(serviceDefinition('payables'), { nc: alone.nc, prefix: alone.prefix, workers: true });
      try {
        const again = await put(c, '2026-03-31', alone);
        expect(outcome(again)).toBe('200');
        expect(again.ok && again.body.data.changes).toHaveLength(1);
        expect(firstRow(await late.sql('SELECT lock_date, version::int AS version FROM books_lock WHERE organization_id = ?', [c.organizationId]))).toEqual({
          lock_date: '2026-03-31',
          version: 1,
        });
        // An older version asked for late answers the copy as it is.
        const stale = await late.call('books_lock.apply', c, { body: { version: 0, lock_date: null } });
        expect(stale.ok && stale.body).toEqual({ version: 1, lock_date: '2026-03-31' });
      } finally {
        await late.stop();
      }
    } finally {
      await alone.stop();
    }
  });

  it('race: postings in flight while PUT runs either committed before it answered or are refused; none dated on or before the lock commits after', async () => {
    const c = ctx();
    const v = await vendor(c);
    const drafts = await Promise.all(Array.from({ length: 12 }, () => draftInvoice(c, '2026-03-10')));
    const dated = async () => ({
      receivables: Number(firstRow(await rec.sql(`SELECT count(*) AS n FROM journal_entries WHERE organization_id = ? AND entry_date <= '2026-03-31'`, [c.organizationId])).n),
      payables: Number(firstRow(await pay.sql(`SELECT count(*) AS n FROM journal_entries WHERE organization_id = ? AND entry_date <= '2026-03-31'`, [c.organizationId])).n),
    });
    const posts = drafts.map((id) => postInvoice(c, id));
    const bills = Array.from({ length: 12 }, () => pay.call('bills.create', c, { body: billBody(v, '2026-03-10') }));
    await putOk(c, '2026-03-31');
    const atAnswer = await dated();
    const outcomes = await Promise.all([...posts, ...bills]);
    // Whatever committed, committed before PUT answered: nothing dated in the period came later.
    expect(await dated()).toEqual(atAnswer);
    for (const o of outcomes) expect(['200', '201', LOCKED]).toContain(outcome(o));
    const committed = outcomes.filter((o) => o.ok).length;
    expect(atAnswer.receivables + atAnswer.payables).toBe(committed);
    // And every posting after the answer is refused, in both services.
    const later = await Promise.all([...drafts.slice(0, 3).map((id) => postInvoice(c, id)), pay.call('bills.create', c, { body: billBody(v, '2026-03-31') })]);
    for (const o of later) expect(['200', LOCKED]).toContain(outcome(o)); // 200: a replay of an invoice posted before
    expect(later.filter((o) => o.ok && !o.replayed)).toEqual([]);
  });
});

/**
 * Payables' copy fed by the books_lock.updated reference event (libs/posting books-lock-feed.ts),
 * against real Postgres and NATS: a PUT that could not wait for payables (503) reaches the copy
 * anyway, with no retry of the PUT; an older version after a newer one, a copy of an event and a
 * replay of the stream change nothing; what is no lock-date event of the owner is parked, and the
 * consumer goes on.
 */
describe('payables copy of the lock date fed by books_lock.updated', () => {
  let rec: TestService;
  let jsm: JetStreamManager;
  const CONSUMER = BOOKS_LOCK_CONSUMERS.payables;
  const LOCKED = 'period_locked:period_locked';
  const outcome = (r: RpcReply<any>): string => (r.ok ? String(r.status) : `${r.error.code}:${r.error.details[0]?.issue ?? ''}`);

  beforeAll(async () => {
    rec = await startServiceForTest(serviceDefinition('receivables', { config: { processorSecretKey: randomBytes(32) } }));
    jsm = await rec.nc.jetstreamManager();
  });
  afterAll(async () => {
    await rec?.stop();
  });

  const put = (c: TrustedContext, lock_date: string | null) => rec.call('settings.books_lock.put', c, { body: { lock_date } });
  /** A payables process with its workers (the feed) on receivables' bus; a fresh database unless given. */
  const startPayables = (db?: TestService['db']) => startServiceForTest(serviceDefinition('payables'), { nc: rec.nc, prefix: rec.prefix, workers: true, db });
  /** Stops it and deletes its durable consumer, so that the next payables (a fresh database) reads the stream from its start. */
  const stopPayables = async (pay: TestService) => {
    await pay.stop();
    await jsm.consumers.delete(eventsStreamName(rec.prefix), CONSUMER).catch(() => undefined);
  };
  const copyOf = async (pay: TestService, c: TrustedContext) =>
    (
      await pay.sql('SELECT lock_date::text AS lock_date, version::int AS version, updated_at FROM books_lock WHERE organization_id = ? AND environment = ?', [
        c.organizationId,
        c.environment,
      ])
    )[0] as { lock_date: string | null; version: number; updated_at: Date } | undefined;
  const copyReaches = (pay: TestService, c: TrustedContext, version: number) => waitFor(async () => (await copyOf(pay, c))?.version === version, 20_000);
  /** Waits until the feed has handled every message of its subject in the stream. */
  const caughtUp = () =>
    waitFor(async () => {
      const info = await jsm.consumers.info(eventsStreamName(rec.prefix), CONSUMER);
      return info.num_pending === 0 && info.num_ack_pending === 0;
    }, 20_000);
  const vendor = async (pay: TestService, c: TrustedContext) => (await pay.ok('vendors.create', c, { body: { external_vendor_id: randomUUID(), display_name: 'V' } })).id as string;
  const createBill = (pay: TestService, c: TrustedContext, vendorId: string, issue: string) =>
    pay.call('bills.create', c, {
      body: {
        external_bill_id: randomUUID(),
        vendor_id: vendorId,
        bill_number: 'B',
        issue_date: issue,
        due_date: issue,
        line_items: [{ description: 'x', quantity: 1, unit_amount_cents: 5000 }],
      },
    });

  it('answers 503 while payables is down; once payables runs its copy catches up from the events, without any retry of the PUT', async () => {
    const c = ctx();
    expect(outcome(await put(c, '2026-03-31'))).toBe('service_unavailable:');
    expect(outcome(await put(c, '2026-04-30'))).toBe('service_unavailable:');
    const pay = await startPayables();
    try {
      await copyReaches(pay, c, 2);
      expect(await copyOf(pay, c)).toMatchObject({ lock_date: '2026-04-30', version: 2 });
      // Enforced: a bill dated in the locked period is refused, one after it posts.
      const v = await vendor(pay, c);
      expect(outcome(await createBill(pay, c, v, '2026-04-30'))).toBe(LOCKED);
      expect(outcome(await createBill(pay, c, v, '2026-05-01'))).toBe('201');
      // No PUT was retried: receivables recorded the two changes and nothing else.
      expect((await rec.ok('settings.books_lock.get', c)).changes).toHaveLength(2);
    } finally {
      await stopPayables(pay);
    }
  });

  it('answers 503 when a running payables cannot be asked, and the copy still catches up from the event', async () => {
    const pay = await startPayables();
    try {
      const c = ctx();
      await pay.wiring.server.drain(); // payables' operations no longer answer: books_lock.apply fails, the feed runs on
      expect(outcome(await put(c, '2026-05-31'))).toBe('service_unavailable:');
      await copyReaches(pay, c, 1);
      expect(await copyOf(pay, c)).toMatchObject({ lock_date: '2026-05-31', version: 1 });
    } finally {
      await stopPayables(pay);
    }
  });

  it('with payables up, PUT answers once the event applied the version to the copy, consumed once; nothing writes the copy again', async () => {
    const pay = await startPayables();
    try {
      const c = ctx();
      expect(outcome(await put(c, '2026-07-31'))).toBe('200');
      const atAnswer = await copyOf(pay, c);
      expect(atAnswer).toMatchObject({ lock_date: '2026-07-31', version: 1 });
      await caughtUp();
      const { id } = firstRow(
        await rec.sql(`SELECT id FROM outbox WHERE subject = ? AND payload->>'organization_id' = ?`, [referenceSubject(rec.prefix, 'books_lock.updated'), c.organizationId]),
      );
      expect(firstRow(await pay.sql('SELECT count(*)::int AS n FROM consumed_events WHERE consumer = ? AND event_id = ?', [CONSUMER, id]))).toEqual({ n: 1 }); // consumed
      expect(await copyOf(pay, c)).toEqual(atAnswer); // and no write after: updated_at is the event's, at PUT's answer
    } finally {
      await stopPayables(pay);
    }
  });

  it('never moves the copy back: an older version after a newer one, a copy of an event and a replay of the stream are no-ops', async () => {
    const db = await freshDatabase('acct_payables_it'); // kept across the two processes below
    const pay = await startPayables(db);
    const js = rec.nc.jetstream();
    const subject = referenceSubject(rec.prefix, 'books_lock.updated');
    const c = ctx();
    const event = (version: number, lock_date: string | null) => ({
      id: randomUUID(),
      type: 'books_lock.updated',
      created_at: new Date().toISOString(),
      organization_id: c.organizationId,
      environment: c.environment,
      data: { version, lock_date },
    });
    try {
      const newer = event(5, '2026-06-30');
      await js.publish(subject, encodeJson(newer));
      await js.publish(subject, encodeJson(event(4, '2026-12-31'))); // older, arriving later
      await js.publish(subject, encodeJson(newer)); // the same event again (a second publish after the dedupe window)
      await js.publish(subject, encodeJson(event(5, null))); // the same version again
      await caughtUp();
      const applied = await copyOf(pay, c);
      expect(applied).toMatchObject({ lock_date: '2026-06-30', version: 5 });
      expect(firstRow(await pay.sql('SELECT count(*)::int AS n FROM consumed_events WHERE consumer = ? AND event_id = ?', [CONSUMER, newer.id]))).toEqual({ n: 1 });

      // A replay of the whole stream (the durable consumer made again) with every claim forgotten:
      // each event is applied again, and the version check leaves the row untouched.
      await pay.sql('DELETE FROM consumed_events');
      await pay.stop();
      await jsm.consumers.delete(eventsStreamName(rec.prefix), CONSUMER);
      const again = await startPayables(db);
      try {
        await caughtUp();
        expect(firstRow(await again.sql('SELECT count(*)::int AS n FROM consumed_events WHERE event_id = ?', [newer.id]))).toEqual({ n: 1 });
        expect(await copyOf(again, c)).toEqual(applied); // updated_at too: no write at all
      } finally {
        await stopPayables(again);
      }
    } finally {
      await pay.stop().catch(() => undefined); // stopped already unless the test failed before
      await db.drop();
    }
  });

  it('parks what is no lock-date event of the owner (not JSON, bad data, bad scope, another type) and goes on with the next event', async () => {
    const pay = await startPayables();
    const js = rec.nc.jetstream();
    const subject = referenceSubject(rec.prefix, 'books_lock.updated');
    const c = ctx();
    const event = (over: Record<string, unknown> = {}, data: unknown = { version: 1, lock_date: '2026-01-31' }) => ({
      id: randomUUID(),
      type: 'books_lock.updated',
      created_at: new Date().toISOString(),
      organization_id: c.organizationId,
      environment: c.environment,
      data,
      ...over,
    });
    try {
      await js.publish(subject, new TextEncoder().encode('not json {'));
      await js.publish(subject, encodeJson(event({}, { version: -1, lock_date: '2026-01-31' })));
      await js.publish(subject, encodeJson(event({}, { version: 1, lock_date: '31/01/2026' })));
      await js.publish(subject, encodeJson(event({ environment: 'staging' })));
      await js.publish(subject, encodeJson(event({ organization_id: 'acme' })));
      await js.publish(subject, encodeJson(event({ type: 'customer.updated' })));
      await js.publish(subject, encodeJson(event({}, { version: 1, lock_date: '2026-02-28' })));
      await caughtUp();
      expect(await copyOf(pay, c)).toMatchObject({ lock_date: '2026-02-28', version: 1 });
      const parked = await pay.sql('SELECT reason, error FROM parked_events WHERE consumer = ? ORDER BY stream_seq', [CONSUMER]);
      expect(parked.map((p) => p.reason)).toEqual(['malformed', 'refused', 'refused', 'refused', 'refused', 'refused']);
      expect(parked.map((p) => p.error)).toEqual([
        expect.stringContaining('not JSON'),
        expect.stringContaining('/version'),
        expect.stringContaining('/lock_date'),
        'environment is not test or live',
        'organization_id is not a uuid',
        'a "customer.updated" event, not books_lock.updated',
      ]);
      // None of them reached the copy; the process is healthy and answers.
      expect(outcome(await createBill(pay, c, await vendor(pay, c), '2026-02-28'))).toBe(LOCKED);
    } finally {
      await stopPayables(pay);
    }
  });
});
