import { randomUUID } from 'node:crypto';
import type { JetStreamManager } from 'nats';
import { CONSUMERS, type RpcOperation, type RpcReply, type RpcRequest, adminSubject, eventsStreamName } from '@acct/contracts';
import { claimEvent, decodeJson, encodeJson } from '@acct/kit';
import { type TestService, ctx, serviceDefinition, startServiceForTest, waitFor } from '@acct/testing';
import { applyEvent } from './consumers/projection';
import { BUCKET_UPTO, bucketOf } from './domain/reports';
import { bucketSql, openAmounts, reportQueries, type ReportQuery } from './queries/reports';
import { reportingService } from './service';

/**
 * Reporting against real Postgres and JetStream, fed by the real payables service: reports read
 * right after a write include it; duplicate copies, redelivery and a poison message change nothing;
 * a rebuild from the stream gives the same figures.
 */
describe('reporting against real Postgres and JetStream', () => {
  // Payables posts on its own connection and prefix; reporting consumes them on the same bus.
  let ap: TestService;
  let rep: TestService;
  let jsm: JetStreamManager;
  const c = ctx();
  const call = (op: RpcOperation, over: Partial<RpcRequest> = {}): Promise<RpcReply<any>> => rep.call(op, c, over);
  const ok = async (p: Promise<RpcReply<any>>): Promise<any> => {
    const r = await p;
    if (!r.ok) throw new Error(`expected ok: ${JSON.stringify(r.error)}`);
    return r.body.data;
  };
  /** Creates bills of the vendor through `send` (one organization's calls): one line of `total` cents each. */
  const billsOf = (send: typeof call, vendorId: string, billNumber: string) => (total: number, issue: string, due: string) => {
    const line_items = [{ description: 'x', quantity: 1, unit_amount_cents: total }];
    return ok(send('bills.create', { body: { external_bill_id: randomUUID(), vendor_id: vendorId, bill_number: billNumber, issue_date: issue, due_date: due, line_items } }));
  };
  const figures = async () => ({
    ap: await ok(call('reports.accounts_payable', { query: { as_of: '2026-03-31' } })),
    tb: await ok(call('reports.trial_balance', { query: { as_of: '2026-12-31' } })),
    f1099: await ok(call('reports.form_1099', { query: { year: '2026', include_ineligible: true } })),
    entries: (await ok(call('journal_entries.list', { query: { limit: 100, offset: 0 } }))).length,
  });

  beforeAll(async () => {
    ap = await startServiceForTest(serviceDefinition('payables'), { poolMax: 5 });
    rep = await startServiceForTest(reportingService(), { nc: ap.nc, prefix: ap.prefix, workers: true, poolMax: 5 });
    jsm = await ap.nc.jetstreamManager();
  });

  afterAll(async () => {
    // Reporting first: it shares payables' connection, which payables' stop drains (and deletes the stream).
    await rep?.stop();
    await ap?.stop();
  });

  it('reads its writes: bills, payments and a reversal show in A/P, the trial balance and the 1099 summary at once', async () => {
    const v = await ok(call('vendors.create', { body: { external_vendor_id: randomUUID(), display_name: 'Acme', is_1099_eligible: true } }));
    const bill = billsOf(call, v.id, 'B');
    const b1 = await bill(300_000, '2026-01-10', '2026-02-10');
    await bill(50_000, '2026-03-01', '2026-03-31');
    const pay = (allocs: { bill_id: string; amount_cents: number }[], date: string) =>
      ok(
        call('vendor_payments.create', {
          body: {
            external_vendor_payment_id: randomUUID(),
            vendor_id: v.id,
            amount_cents: allocs.reduce((s, a) => s + a.amount_cents, 0),
            payment_date: date,
            allocations: allocs,
          },
        }),
      );
    await pay([{ bill_id: b1.id, amount_cents: 250_000 }], '2026-02-01');
    const p2 = await pay([{ bill_id: b1.id, amount_cents: 10_000 }], '2026-02-02');
    await ok(call('vendor_payments.reverse', { params: { id: p2.id }, body: { reversal_reason: 'duplicate' } }));

    const apr = await ok(call('reports.accounts_payable', { query: { as_of: '2026-03-31' } }));
    // b1: 300000 − 250000 − 10000 open, due 2026-02-10 (49 days late): the reversal is dated today, after
    // as_of, so the reversed payment still counts then; b2 due on as_of: current.
    expect(apr).toMatchObject({ total_open_cents: 90_000, vendor_count: 1, aging: { current: 50_000, days_31_60: 40_000 } });
    expect(apr.vendors).toEqual([expect.objectContaining({ vendor_id: v.id, display_name: 'Acme', open_cents: 90_000 })]);
    expect((await ok(call('reports.accounts_payable', { query: { as_of: '2026-12-31' } }))).total_open_cents).toBe(100_000);
    // As of the day before the payment, the whole bill is open; b2 not yet issued.
    expect((await ok(call('reports.accounts_payable', { query: { as_of: '2026-01-31' } }))).total_open_cents).toBe(300_000);
    const f = await ok(call('reports.form_1099', { query: { year: '2026' } }));
    expect(f).toMatchObject({ threshold_cents: 200_000, total_reportable_paid_cents: 250_000, eligible_vendor_count: 1, missing_w9_count: 1 });
    expect((await ok(call('reports.form_1099', { query: { year: '2025' } }))).vendors).toEqual([]);
    const tb = await ok(call('reports.trial_balance', { query: { as_of: '2026-12-31' } }));
    expect(tb.balanced).toBe(true);
    expect(tb.accounts.find((a: { code: string }) => a.code === '2000').credit_cents).toBe(100_000);
    const entries = await ok(call('journal_entries.list', { query: { limit: 100, offset: 0, source_type: 'vendor_payment' } }));
    expect(entries).toHaveLength(3); // two payments and one reversal (mirror keeps the source type)
    expect(entries[0].lines.length).toBeGreaterThan(0);
  });

  it('refuses from after to, naming the parameter, and an unknown year', async () => {
    const r = await call('reports.summary', { query: { from: '2026-02-01', to: '2026-01-01' } });
    expect(r.ok ? null : r.error.details[0]?.field).toBe('from');
    const y = await call('reports.form_1099', { query: { year: '1200' } });
    expect(y.ok ? null : y.error.details[0]?.field).toBe('year');
  });

  it('ignores a second copy of an event (another stream message, same event id) and parks a poison message', async () => {
    const before = await figures();
    const last = await jsm.streams.getMessage(eventsStreamName(ap.prefix), { last_by_subj: `${ap.prefix}.events.posting.payables` });
    await ap.nc.jetstream().publish(last.subject, last.data, { msgID: randomUUID() });
    // A posting event that is not one (lines missing): refused and parked at once, never applied.
    const poison = { id: randomUUID(), type: 'journal_entry.posted', organization_id: c.organizationId, environment: 'test', occurred_at: new Date().toISOString(), entry: null };
    await ap.nc.jetstream().publish(`${ap.prefix}.events.posting.payables`, encodeJson(poison), { msgID: poison.id });
    await waitFor(async () => {
      const rows = await rep.orm.em.fork().getConnection().execute<{ n: number }[]>(`SELECT count(*)::int AS n FROM parked_events WHERE event_id = ?`, [poison.id]);
      return rows[0]?.n === 1;
    }, 20_000);
    expect(await figures()).toEqual(before);
  }, 30_000);

  it('a crash after commit and before the ack: the redelivered event is a duplicate and changes nothing', async () => {
    const before = await figures();
    // A valid posting (a copy of payables' first one, as a new entry): reporting would apply it.
    let seq = 1;
    while ((await jsm.streams.getMessage(eventsStreamName(ap.prefix), { seq })).subject !== `${ap.prefix}.events.posting.payables`) seq++;
    const first = await jsm.streams.getMessage(eventsStreamName(ap.prefix), { seq });
    const id = randomUUID();
    const event = decodeJson<Record<string, any> & { id: string }>(first.data);
    event.id = id;
    event.entry = { ...event.entry, id: randomUUID(), source_id: randomUUID() };
    // The consumer's transaction committed (claim + projection) and the process died before m.ack().
    await rep.orm.em.fork().transactional(async (em) => {
      expect(await claimEvent(em, CONSUMERS.reportingPostings, id, 0)).toBe(true);
      await applyEvent(em, { id, subject: 'x', seq: 0, payload: event });
    });
    const committed = await figures();
    expect(committed.entries).toBe(before.entries + 1);
    await ap.nc.jetstream().publish(`${ap.prefix}.events.posting.payables`, encodeJson(event), { msgID: id });
    expect(await figures()).toEqual(committed);
  });

  it('reference events out of order: the newest version of a vendor wins whatever the arrival order', async () => {
    const vendorId = randomUUID();
    const ref = (type: string, at: string, eligible: boolean) => ({
      id: randomUUID(),
      type,
      created_at: at,
      organization_id: c.organizationId,
      environment: 'test',
      data: { id: vendorId, display_name: `V ${at}`, is_1099_eligible: eligible, w9_on_file: false, updated_at: at },
    });
    const newer = ref('vendor.updated', '2026-05-02T00:00:00.000Z', true);
    const older = ref('vendor.created', '2026-05-01T00:00:00.000Z', false);
    for (const e of [newer, older, newer]) await ap.nc.jetstream().publish(`${ap.prefix}.events.reference.${e.type}`, encodeJson(e), { msgID: randomUUID() });
    await figures(); // waits until applied
    const rows = await rep.orm.em
      .fork()
      .getConnection()
      .execute<{ display_name: string; is_1099_eligible: boolean }[]>(`SELECT display_name, is_1099_eligible FROM parties WHERE id = ?`, [vendorId]);
    expect(rows).toEqual([{ display_name: 'V 2026-05-02T00:00:00.000Z', is_1099_eligible: true }]);
  });

  it('rebuilds from the stream to the same figures', async () => {
    const before = await figures();
    // As the operator asks it (npm run admin -- reporting rebuild): one replica answers when done.
    const reply = await ap.nc.request(adminSubject(ap.prefix, 'reporting', 'rebuild'), new Uint8Array(), { timeout: 55_000 });
    const r = decodeJson<{ ok: boolean; applied: number; last_seq: number }>(reply.data);
    expect(r).toMatchObject({ ok: true });
    expect(r.last_seq).toBeGreaterThan(0);
    expect(r.applied).toBeGreaterThan(0);
    expect(await figures()).toEqual(before);
    // The daily totals agree with the lines they sum.
    const diff = await rep.orm.em
      .fork()
      .getConnection()
      .execute(
        `SELECT account_code, entry_date FROM account_days d FULL JOIN (
         SELECT organization_id, environment, account_code, entry_date,
                sum(amount_cents) FILTER (WHERE side = 'debit') AS debit, sum(amount_cents) FILTER (WHERE side = 'credit') AS credit
           FROM journal_lines GROUP BY 1, 2, 3, 4) l USING (organization_id, environment, account_code, entry_date)
        WHERE coalesce(d.debit_cents, -1) <> coalesce(l.debit, 0) OR coalesce(d.credit_cents, -1) <> coalesce(l.credit, 0)`,
      );
    expect(diff).toEqual([]);
    // So do the open amounts (A/R debit − credit, A/P credit − debit).
    const open = await rep.orm.em
      .fork()
      .getConnection()
      .execute(
        `SELECT account_code FROM (SELECT account_code, sum(open_cents) AS o FROM open_days GROUP BY 1) d FULL JOIN (
         SELECT account_code, sum(CASE WHEN (side = 'debit') = (account_code = '1100') THEN amount_cents ELSE -amount_cents END) AS o
           FROM journal_lines WHERE account_code IN ('1100', '2000') GROUP BY 1) l USING (account_code)
        WHERE d.o IS DISTINCT FROM l.o`,
      );
    expect(open).toEqual([]);
    const info = await jsm.consumers.info(eventsStreamName(ap.prefix), CONSUMERS.reportingPostings);
    expect(info.num_pending).toBe(0);
  }, 60_000);

  it('puts a due date in the same aging bucket in SQL as bucketOf does, on every edge', async () => {
    const asOf = '2026-03-31';
    const dues = [
      '2026-04-01',
      '2026-03-31',
      '2026-03-30',
      '2026-03-01',
      '2026-02-28',
      '2026-01-31',
      '2026-01-30',
      '2026-01-01',
      '2025-12-31',
      '2025-12-30',
      '2024-02-29',
      'infinity',
    ];
    const conn = rep.orm.em.fork().getConnection();
    const cases: [string, string][] = dues.map((due) => [due, asOf]);
    // The ends of the date range, as due dates and as as_of.
    for (const edge of ['1900-01-01', '9999-12-31'])
      for (const other of ['1900-01-01', '1900-04-01', '1900-04-02', '2026-03-31', '9999-10-02', '9999-12-31']) cases.push([edge, other], [other, edge]);
    for (const [due, on] of cases) {
      const [row] = await conn.execute<{ b: string }[]>(`SELECT ${bucketSql('?::date', '?::date')} AS b`, Array.from({ length: 4 }, () => [due, on]).flat());
      expect([due, on, row?.b]).toEqual([due, on, bucketOf(due === 'infinity' ? null : due, on)]);
    }
  });

  it('each report query reads only its summary tables, never the journal lines (EXPLAIN)', async () => {
    const s = { organizationId: c.organizationId, environment: c.environment };
    const expected: [ReportQuery, string[]][] = [
      [reportQueries.accountTotals(s, '2026-06-30'), ['account_days']],
      [reportQueries.netCredit(s, '4000', '2026-01-01', '2026-12-31'), ['account_days']],
      [reportQueries.openAmounts(s, 'invoice', '2026-06-30'), ['open_days', 'open_leads', 'party_periods', 'parties']],
      [reportQueries.openAmounts(s, 'bill', '2026-06-30'), ['open_days', 'open_leads', 'party_periods', 'parties']],
      [reportQueries.openAmounts(s, 'bill', '1900-01-01'), ['open_days', 'open_leads', 'party_periods', 'parties']],
      [reportQueries.openAmounts(s, 'invoice', '9999-12-31'), ['open_days', 'open_leads', 'party_periods', 'parties']],
      [reportQueries.vendorPaymentsInYear(s, 2026), ['vendor_payment_years', 'parties']],
    ];
    const conn = rep.orm.em.fork().getConnection();
    for (const [q, tables] of expected) {
      const [row] = await conn.execute<{ 'QUERY PLAN': unknown }[]>(`EXPLAIN (FORMAT JSON) ${q.sql}`, q.params);
      const relations = new Set<string>();
      const walk = (node: unknown): void => {
        if (!node || typeof node !== 'object') return;
        const n = node as Record<string, unknown>;
        if (typeof n['Relation Name'] === 'string') relations.add(n['Relation Name']);
        for (const v of Object.values(n)) if (typeof v === 'object') walk(v);
      };
      walk(row?.['QUERY PLAN']);
      expect([...relations].sort()).toEqual([...tables].sort());
    }
  });
  /** The open amounts per party and bucket as of asOf by the plain sum of open_days up to as_of (what openAmounts must give). */
  const key = (r: { partyId: string; bucket: string }) => `${r.partyId} ${r.bucket}`;
  const plainOpenAmounts = async (s: { organizationId: string; environment: string }, code: string, asOf: string) => {
    const rows = await rep.orm.em
      .fork()
      .getConnection()
      .execute<{ party_id: string | null; bucket: string; open: string }[]>(
        `SELECT nullif(party_id, '00000000-0000-0000-0000-000000000000')::text AS party_id, ${bucketSql('due_date', '?::date')} AS bucket, sum(open_cents) AS open
           FROM open_days WHERE organization_id = ? AND environment = ? AND account_code = ? AND entry_date <= ?::date GROUP BY 1, 2 HAVING sum(open_cents) <> 0`,
        [...BUCKET_UPTO.map(() => asOf), s.organizationId, s.environment, code, asOf],
      );
    return rows.map((r) => ({ partyId: String(r.party_id), bucket: r.bucket, openCents: Number(r.open) })).sort((a, b) => key(a).localeCompare(key(b)));
  };
  const boundedOpenAmounts = async (s: { organizationId: string; environment: string }, kind: 'invoice' | 'bill', asOf: string) =>
    (await openAmounts(rep.orm, { organizationId: s.organizationId, environment: s.environment as 'test' }, kind, asOf))
      .filter((r) => r.openCents !== 0)
      .map((r) => ({ partyId: r.partyId, bucket: r.bucket, openCents: r.openCents }))
      .sort((a, b) => key(a).localeCompare(key(b)));

  it('A/P as of every day from before the first entry to after the last: the bounded query gives the sums of open_days up to as_of', async () => {
    const s = { organizationId: c.organizationId, environment: c.environment };
    const conn = rep.orm.em.fork().getConnection();
    const [span] = await conn.execute<{ first: string; last: string }[]>(
      `SELECT to_char(min(entry_date) - 100, 'YYYY-MM-DD') AS first, to_char(max(entry_date) + 200, 'YYYY-MM-DD') AS last FROM open_days WHERE organization_id = ? AND account_code = '2000'`,
      [s.organizationId],
    );
    let days = 0;
    for (let t = Date.parse(span!.first); t <= Date.parse(span!.last); t += 86_400_000, days++) {
      const asOf = new Date(t).toISOString().slice(0, 10);
      expect({ asOf, got: await boundedOpenAmounts(s, 'bill', asOf) }).toEqual({ asOf, got: await plainOpenAmounts(s, '2000', asOf) });
    }
    expect(days).toBeGreaterThan(300);
  });

  it('extreme dates (1900-01-01, 9999-12-31) on every dated field: every report answers, to the cent, at every as_of', async () => {
    // An organization of its own: the test above walks every day of c's ledger.
    const x: typeof c = { ...c, organizationId: randomUUID(), requestId: randomUUID() };
    const s = { organizationId: x.organizationId, environment: x.environment };
    const xcall = (op: RpcOperation, over: Partial<RpcRequest> = {}) => call(op, { ctx: x, ...over });
    const v = await ok(xcall('vendors.create', { body: { external_vendor_id: randomUUID(), display_name: 'Edge', is_1099_eligible: true } }));
    const bill = billsOf(xcall, v.id, 'E');
    const pay = (billId: string, cents: number, date: string) =>
      ok(
        xcall('vendor_payments.create', {
          body: { external_vendor_payment_id: randomUUID(), vendor_id: v.id, amount_cents: cents, payment_date: date, allocations: [{ bill_id: billId, amount_cents: cents }] },
        }),
      );
    const bOld = await bill(10_000, '1900-01-01', '1900-01-01');
    const bSpan = await bill(20_000, '1900-01-01', '9999-12-31'); // the longest lead: 2,958,463 days
    await bill(40_000, '9999-12-31', '9999-12-31');
    await bill(80_000, '2026-01-10', '9999-12-31'); // issue 21's bill: lead 2,912,137 days
    await pay(bOld.id, 1_000, '1900-01-01');
    await pay(bSpan.id, 2_000, '9999-12-31');
    // Receivables through the projection (the receivables service is not wired here): invoices posted on the extreme dates.
    const customer = randomUUID();
    const invoice = async (cents: number, issue: string, due: string) => {
      const id = randomUUID();
      const event = {
        id: randomUUID(),
        type: 'journal_entry.posted',
        organization_id: x.organizationId,
        environment: 'test',
        occurred_at: new Date().toISOString(),
        entry: {
          id: randomUUID(),
          entry_date: issue,
          source_type: 'invoice',
          source_id: id,
          memo: null,
          reverses_entry_id: null,
          lines: [
            { account_id: randomUUID(), account_code: '1100', side: 'debit', amount_cents: cents, customer_id: customer, invoice_id: id, vendor_id: null, bill_id: null },
            { account_id: randomUUID(), account_code: '4000', side: 'credit', amount_cents: cents, customer_id: customer, invoice_id: id, vendor_id: null, bill_id: null },
          ],
        },
        source: { type: 'invoice', invoice: { id, customer_id: customer, issue_date: issue, due_date: due } },
      };
      await rep.orm.em.fork().transactional((em) => applyEvent(em, { id: event.id, subject: 'x', seq: 0, payload: event }));
    };
    await invoice(3_000, '1900-01-01', '1900-01-01');
    await invoice(5_000, '2026-01-10', '9999-12-31');
    await invoice(7_000, '9999-12-31', '9999-12-31');

    const aging = (current: number, d1: number, d31: number, d61: number, over: number) => ({ current, days_1_30: d1, days_31_60: d31, days_61_90: d61, days_over_90: over });
    const ap = async (asOf: string) => ok(xcall('reports.accounts_payable', { query: { as_of: asOf } }));
    const ar = async (asOf: string) => ok(xcall('reports.accounts_receivable', { query: { as_of: asOf } }));
    // A/P: due 9999-12-31 is current at any as_of; due 1900-01-01 is over 90 from 1900-04-02 (1900 is no leap year).
    expect(await ap('1900-01-01')).toMatchObject({ total_open_cents: 29_000, vendor_count: 1, aging: aging(29_000, 0, 0, 0, 0) });
    expect(await ap('1900-01-31')).toMatchObject({ aging: aging(20_000, 9_000, 0, 0, 0) });
    expect(await ap('1900-04-01')).toMatchObject({ aging: aging(20_000, 0, 0, 9_000, 0) });
    expect(await ap('1900-04-02')).toMatchObject({ aging: aging(20_000, 0, 0, 0, 9_000) });
    expect(await ap('2026-03-31')).toMatchObject({ total_open_cents: 109_000, aging: aging(100_000, 0, 0, 0, 9_000) });
    expect(await ap('9999-12-30')).toMatchObject({ total_open_cents: 109_000, aging: aging(100_000, 0, 0, 0, 9_000) });
    expect(await ap('9999-12-31')).toMatchObject({ total_open_cents: 147_000, vendor_count: 1, aging: aging(138_000, 0, 0, 0, 9_000) });
    // A/R likewise.
    expect(await ar('1900-01-01')).toMatchObject({ total_open_cents: 3_000, customer_count: 1, aging: aging(3_000, 0, 0, 0, 0) });
    expect(await ar('1900-04-02')).toMatchObject({ aging: aging(0, 0, 0, 0, 3_000) });
    expect(await ar('2026-03-31')).toMatchObject({ total_open_cents: 8_000, aging: aging(5_000, 0, 0, 0, 3_000) });
    expect(await ar('9999-12-31')).toMatchObject({ total_open_cents: 15_000, aging: aging(12_000, 0, 0, 0, 3_000) });
    // The bounded query agrees with the plain sums on each edge.
    for (const asOf of ['1900-01-01', '1900-04-01', '1900-04-02', '2026-03-31', '9999-10-02', '9999-10-03', '9999-12-30', '9999-12-31']) {
      expect({ asOf, got: await boundedOpenAmounts(s, 'bill', asOf) }).toEqual({ asOf, got: await plainOpenAmounts(s, '2000', asOf) });
      expect({ asOf, got: await boundedOpenAmounts(s, 'invoice', asOf) }).toEqual({ asOf, got: await plainOpenAmounts(s, '1100', asOf) });
    }
    // The trial balance, the summary, the 1099 summary and the journal at both ends.
    const tb = async (asOf: string) => ok(xcall('reports.trial_balance', { query: { as_of: asOf } }));
    const col = (t: { accounts: { code: string; debit_cents: number; credit_cents: number }[] }, code: string) => {
      const a = t.accounts.find((r) => r.code === code)!;
      return a.debit_cents - a.credit_cents;
    };
    const tb1900 = await tb('1900-01-01');
    expect(tb1900).toMatchObject({ as_of: '1900-01-01', balanced: true, total_debit_cents: 33_000 });
    expect([col(tb1900, '1100'), col(tb1900, '2000')]).toEqual([3_000, -29_000]);
    const tb9999 = await tb('9999-12-31');
    expect(tb9999).toMatchObject({ balanced: true });
    expect([col(tb9999, '1100'), col(tb9999, '2000'), col(tb9999, '4000')]).toEqual([15_000, -147_000, -15_000]);
    const summary = await ok(xcall('reports.summary', { query: { from: '1900-01-01', to: '9999-12-31' } }));
    expect(summary).toEqual({ from: '1900-01-01', to: '9999-12-31', revenue_cents: 15_000, accounts_receivable_cents: 15_000, accounts_payable_cents: 147_000 });
    expect(await ok(xcall('reports.summary', { query: { from: '1900-01-01', to: '1900-01-01' } }))).toMatchObject({ revenue_cents: 3_000, accounts_payable_cents: 29_000 });
    expect(await ok(xcall('reports.form_1099', { query: { year: '1900', include_ineligible: true } }))).toMatchObject({
      reporting_year: 1900,
      threshold_cents: 60_000,
      total_reportable_paid_cents: 0,
      vendors: [expect.objectContaining({ vendor_id: v.id, paid_cents: 1_000, reportable: false })],
    });
    expect(await ok(xcall('reports.form_1099', { query: { year: '9999', include_ineligible: true } }))).toMatchObject({
      reporting_year: 9999,
      threshold_cents: 200_000,
      vendors: [expect.objectContaining({ vendor_id: v.id, paid_cents: 2_000 })],
    });
    const entries = async (from: string, to: string) =>
      ((await ok(xcall('journal_entries.list', { query: { limit: 100, offset: 0, from, to } }))) as { entry_date: string }[]).map((e) => e.entry_date).sort();
    expect(await entries('1900-01-01', '1900-01-01')).toEqual(['1900-01-01', '1900-01-01', '1900-01-01', '1900-01-01']);
    expect(await entries('9999-12-31', '9999-12-31')).toEqual(['9999-12-31', '9999-12-31', '9999-12-31']);
    expect(await entries('1900-01-01', '9999-12-31')).toHaveLength(9);
  });
});
