import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { RpcOperation, RpcReply, RpcRequest } from '@acct/contracts';
import type { ConsumedEvent } from '@acct/kit';
import { ACCOUNT, DEFAULT_CHART, accountId } from '@acct/ledger';
import { type TestService, ctx, postingLine, startServiceForTest } from '@acct/testing';
import { applyEvent } from './consumers/projection';
import { statementQueries } from './queries/statements';
import { reportingService } from './service';

/**
 * The financial statements (API-DECISIONS §14) against real Postgres: a small business's postings
 * (invoice, processor payment, payout with its fee, bill, vendor payment) with the statements a
 * bookkeeper computes by hand, the edge dates, and a property over random postings: the balance
 * sheet balances at every date and each account's general ledger closes at its trial balance.
 */
describe('financial statements against real Postgres', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startServiceForTest(reportingService(), { poolMax: 3, workers: true });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  type Line = ReturnType<typeof postingLine>;
  /** Applies one posting (as the consumer would) of the context's organization. */
  const post = async (c: ReturnType<typeof ctx>, date: string, sourceType: string, lines: [string, 'debit' | 'credit', number, Partial<Line>?][], source: object = {}) => {
    const id = randomUUID();
    const payload = {
      id,
      type: 'journal_entry.posted',
      organization_id: c.organizationId,
      environment: c.environment,
      occurred_at: new Date().toISOString(),
      entry: {
        id: randomUUID(),
        entry_date: date,
        source_type: sourceType,
        source_id: randomUUID(),
        memo: `${sourceType} ${date}`,
        reverses_entry_id: null,
        lines: lines.map(([code, side, cents, over]) => postingLine(accountId(c.organizationId, c.environment, code), code, side, cents, over)),
      },
      source: { type: sourceType, ...source },
    };
    const event: ConsumedEvent = { id, subject: 'x', seq: 0, payload };
    await svc.orm.em.fork().transactional((em) => applyEvent(em, event));
  };
  const caller =
    (c: ReturnType<typeof ctx>) =>
    (op: RpcOperation, over: Partial<RpcRequest> = {}) =>
      svc.call(op, c, over);
  const data = async (p: Promise<RpcReply<any>>): Promise<any> => {
    const r = await p;
    if (!r.ok) throw new Error(`expected ok: ${JSON.stringify(r.error)}`);
    return r.body.data;
  };
  const fieldOf = async (p: Promise<RpcReply<any>>) => {
    const r = await p;
    return r.ok ? null : { code: r.error.code, field: r.error.details[0]?.field };
  };

  describe('a small business, computed by hand', () => {
    const c = ctx();
    const call = caller(c);
    const [C1, I1, I2, V1, B1, B2] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const inv = (id: string, issue: string) => ({ invoice: { id, customer_id: C1, issue_date: issue, due_date: issue } });
    const bill = (id: string, issue: string) => ({ bill: { id, vendor_id: V1, issue_date: issue, due_date: issue } });

    beforeAll(async () => {
      const ar = (i: string) => ({ customer_id: C1, invoice_id: i });
      const ap = (b: string) => ({ vendor_id: V1, bill_id: b });
      /** A posting of two lines for the same amount: one debit, one credit. */
      const move = (date: string, sourceType: string, cents: number, debit: [string, Partial<Line>?], credit: [string, Partial<Line>?], source?: object) =>
        post(
          c,
          date,
          sourceType,
          [
            [debit[0], 'debit', cents, debit[1]],
            [credit[0], 'credit', cents, credit[1]],
          ],
          source,
        );
      await move('2025-11-15', 'invoice', 100_000, [ACCOUNT.receivable, ar(I1)], [ACCOUNT.revenue], inv(I1, '2025-11-15'));
      await move('2025-12-01', 'bill', 30_000, [ACCOUNT.expenses], [ACCOUNT.payable, ap(B1)], bill(B1, '2025-12-01'));
      await move('2026-01-10', 'invoice', 250_000, [ACCOUNT.receivable, ar(I2)], [ACCOUNT.revenue], inv(I2, '2026-01-10'));
      await move('2026-01-20', 'payment', 100_000, [ACCOUNT.processorClearing], [ACCOUNT.receivable, ar(I1)], inv(I1, '2025-11-15'));
      await post(c, '2026-02-05', 'processor_payout', [
        [ACCOUNT.bank, 'debit', 97_000],
        [ACCOUNT.processorFees, 'debit', 3_000],
        [ACCOUNT.processorClearing, 'credit', 100_000],
      ]);
      const vp = { bills: [{ id: B1, vendor_id: V1, issue_date: '2025-12-01', due_date: '2025-12-01' }] };
      await move('2026-02-10', 'vendor_payment', 30_000, [ACCOUNT.payable, ap(B1)], [ACCOUNT.cash], vp);
      await move('2026-03-03', 'bill', 40_000, [ACCOUNT.expenses], [ACCOUNT.payable, ap(B2)], bill(B2, '2026-03-03'));
    });

    it('profit and loss by month: revenue 250000 in January, fees 3000 in February, a bill of 40000 in March', async () => {
      const pl = await data(call('reports.profit_and_loss', { query: { from: '2026-01-01', to: '2026-03-31', columns: 'month' } }));
      expect(pl.columns).toEqual([
        { from: '2026-01-01', to: '2026-01-31', total_revenue_cents: 250_000, total_expenses_cents: 0, net_income_cents: 250_000 },
        { from: '2026-02-01', to: '2026-02-28', total_revenue_cents: 0, total_expenses_cents: 3_000, net_income_cents: -3_000 },
        { from: '2026-03-01', to: '2026-03-31', total_revenue_cents: 0, total_expenses_cents: 40_000, net_income_cents: -40_000 },
      ]);
      expect(pl.revenue.map((r: any) => [r.code, r.amounts_cents, r.total_cents])).toEqual([['4000', [250_000, 0, 0], 250_000]]);
      expect(pl.expenses.map((r: any) => [r.code, r.amounts_cents, r.total_cents])).toEqual([
        ['5000', [0, 0, 40_000], 40_000],
        ['5200', [0, 3_000, 0], 3_000],
      ]);
      expect(pl).toMatchObject({ basis: 'accrual', total_revenue_cents: 250_000, total_expenses_cents: 43_000, net_income_cents: 207_000 });
      const year = await data(call('reports.profit_and_loss', { query: { from: '2025-01-01', to: '2025-12-31' } }));
      expect(year).toMatchObject({ total_revenue_cents: 100_000, total_expenses_cents: 30_000, net_income_cents: 70_000 });
    });

    it('cash basis by month: I1’s 100000 when paid in January, the fee at the payout and B1 when paid in February, nothing open', async () => {
      const pl = await data(call('reports.profit_and_loss', { query: { from: '2026-01-01', to: '2026-03-31', columns: 'month', basis: 'cash' } }));
      expect(pl.columns.map((x: any) => [x.total_revenue_cents, x.total_expenses_cents, x.net_income_cents])).toEqual([
        [100_000, 0, 100_000],
        [0, 33_000, -33_000],
        [0, 0, 0],
      ]);
      expect(pl.expenses.map((r: any) => [r.code, r.amounts_cents])).toEqual([
        ['5000', [0, 30_000, 0]],
        ['5200', [0, 3_000, 0]],
      ]);
      expect(pl).toMatchObject({ basis: 'cash', total_revenue_cents: 100_000, total_expenses_cents: 33_000, net_income_cents: 67_000 });
      // Over all time, accrual less cash is what is still open: I2 (250000) less B2 (40000).
      const cash = await data(call('reports.profit_and_loss', { query: { from: '1900-01-01', to: '9999-12-31', basis: 'cash' } }));
      expect(cash.net_income_cents).toBe(277_000 - 250_000 + 40_000);
      // 2025: the invoice and the bill were unpaid then.
      expect((await data(call('reports.profit_and_loss', { query: { from: '2025-01-01', to: '2025-12-31', basis: 'cash' } }))).net_income_cents).toBe(0);
    });

    it('balance sheet by month: assets = liabilities + equity, retained earnings are 2025’s net income', async () => {
      const bs = await data(call('reports.balance_sheet', { query: { as_of: '2026-03-31', columns: 'month' } }));
      const bal = (code: string) => [...bs.assets, ...bs.liabilities].find((r: any) => r.code === code).balances_cents;
      expect(bal('1000')).toEqual([0, -30_000, -30_000]);
      expect(bal('1010')).toEqual([0, 97_000, 97_000]);
      expect(bal('1100')).toEqual([250_000, 250_000, 250_000]);
      expect(bal('1200')).toEqual([100_000, 0, 0]);
      expect(bal('2000')).toEqual([30_000, 0, 40_000]);
      expect(bs.columns).toEqual([
        {
          as_of: '2026-01-31',
          total_assets_cents: 350_000,
          total_liabilities_cents: 30_000,
          retained_earnings_cents: 70_000,
          current_year_earnings_cents: 250_000,
          total_equity_cents: 320_000,
        },
        {
          as_of: '2026-02-28',
          total_assets_cents: 317_000,
          total_liabilities_cents: 0,
          retained_earnings_cents: 70_000,
          current_year_earnings_cents: 247_000,
          total_equity_cents: 317_000,
        },
        {
          as_of: '2026-03-31',
          total_assets_cents: 317_000,
          total_liabilities_cents: 40_000,
          retained_earnings_cents: 70_000,
          current_year_earnings_cents: 207_000,
          total_equity_cents: 277_000,
        },
      ]);
      expect(bs).toMatchObject({ as_of: '2026-03-31', total_assets_cents: 317_000, total_equity_cents: 277_000, fiscal_year_start_month: 1 });
    });

    it('general ledger of A/R: opening 100000, two lines with running balances, closing 250000, one line a page', async () => {
      const q = { account_id: accountId(c.organizationId, c.environment, '1100'), from: '2026-01-01', to: '2026-03-31', limit: 1 };
      const p1 = await data(call('reports.general_ledger', { query: q }));
      expect(p1).toMatchObject({ code: '1100', normal_balance: 'debit', opening_balance_cents: 100_000, closing_balance_cents: 250_000, has_more: true });
      expect(p1.lines).toEqual([
        expect.objectContaining({
          entry_date: '2026-01-10',
          source_type: 'invoice',
          memo: 'invoice 2026-01-10',
          debit_cents: 250_000,
          credit_cents: 0,
          running_balance_cents: 350_000,
        }),
      ]);
      const p2 = await data(call('reports.general_ledger', { query: { ...q, cursor: p1.next_cursor } }));
      expect(p2.lines).toEqual([
        expect.objectContaining({ entry_date: '2026-01-20', source_type: 'payment', debit_cents: 0, credit_cents: 100_000, running_balance_cents: 250_000 }),
      ]);
      expect(p2).toMatchObject({ has_more: false, next_cursor: null });
      const ap = await data(call('reports.general_ledger', { query: { ...q, account_id: accountId(c.organizationId, c.environment, '2000'), from: '2025-01-01', limit: 10 } }));
      expect(ap.lines.map((l: any) => l.running_balance_cents)).toEqual([30_000, 0, 40_000]);
      expect(ap).toMatchObject({ normal_balance: 'credit', opening_balance_cents: 0, closing_balance_cents: 40_000 });
      // A cursor of another period is refused, as is an account of no one.
      expect(await fieldOf(call('reports.general_ledger', { query: { ...q, from: '2026-01-02', cursor: p1.next_cursor } }))).toEqual({
        code: 'validation_failed',
        field: 'cursor',
      });
      expect(await fieldOf(call('reports.general_ledger', { query: { ...q, account_id: randomUUID() } }))).toEqual({ code: 'validation_failed', field: 'account_id' });
      expect(await fieldOf(call('reports.general_ledger', { query: { ...q, cursor: 'nonsense' } }))).toEqual({ code: 'validation_failed', field: 'cursor' });
    });

    it('a fiscal year starting in July moves 2025’s second half into current year earnings', async () => {
      expect(await data(call('settings.fiscal_year.get'))).toEqual({ fiscal_year_start_month: 1 });
      expect(await data(call('settings.fiscal_year.put', { body: { fiscal_year_start_month: 7 } }))).toEqual({ fiscal_year_start_month: 7 });
      expect(await data(call('settings.fiscal_year.get'))).toEqual({ fiscal_year_start_month: 7 });
      const bs = await data(call('reports.balance_sheet', { query: { as_of: '2026-03-31', columns: 'year' } }));
      expect(bs.columns.at(-1)).toMatchObject({ retained_earnings_cents: 0, current_year_earnings_cents: 277_000, total_equity_cents: 277_000 });
      expect(bs.columns.map((x: any) => x.as_of)).toEqual(['2021-06-30', '2022-06-30', '2023-06-30', '2024-06-30', '2025-06-30', '2026-03-31'].slice(1));
      const pl = await data(call('reports.profit_and_loss', { query: { from: '2025-07-01', to: '2026-06-30', columns: 'quarter' } }));
      expect(pl.columns.map((x: any) => x.net_income_cents)).toEqual([0, 70_000, 207_000, 0]);
      await data(call('settings.fiscal_year.put', { body: { fiscal_year_start_month: 1 } }));
    });

    it('edge dates work and bad periods are 400 validation_failed', async () => {
      const all = await data(call('reports.profit_and_loss', { query: { from: '1900-01-01', to: '9999-12-31' } }));
      expect(all.net_income_cents).toBe(277_000);
      const bs = await data(call('reports.balance_sheet', { query: { as_of: '9999-12-31', columns: 'year' } }));
      expect(bs.total_assets_cents).toBe(bs.total_liabilities_cents + bs.total_equity_cents);
      expect((await data(call('reports.balance_sheet', { query: { as_of: '1900-01-01', columns: 'quarter' } }))).total_assets_cents).toBe(0);
      const gl = { account_id: accountId(c.organizationId, c.environment, '4000'), from: '1900-01-01', to: '9999-12-31', limit: 100 };
      expect((await data(call('reports.general_ledger', { query: gl }))).closing_balance_cents).toBe(350_000);
      expect(await fieldOf(call('reports.profit_and_loss', { query: { from: '2026-02-01', to: '2026-01-01' } }))).toEqual({ code: 'validation_failed', field: 'from' });
      expect(await fieldOf(call('reports.general_ledger', { query: { ...gl, from: '2026-02-01', to: '2026-01-01' } }))).toEqual({ code: 'validation_failed', field: 'from' });
      expect(await fieldOf(call('reports.profit_and_loss', { query: { from: '1900-01-01', to: '9999-12-31', columns: 'month' } }))).toEqual({
        code: 'validation_failed',
        field: 'columns',
      });
    });
  });

  it('a general ledger page is one range of journal_lines_ledger from its cursor, at any depth (EXPLAIN)', async () => {
    const s = ctx();
    const after = { entryDate: '2026-06-30', entryId: randomUUID(), lineNo: 2, balanceCents: 0 };
    const q = statementQueries.ledgerLines(s, '1100', '1900-01-01', '9999-12-31', after, 26);
    // One transaction (one connection): an empty table is scanned otherwise; SET LOCAL asks for the plan a large one gets.
    const row = await svc.orm.em.fork().transactional(async (em) => {
      await em.execute('SET LOCAL enable_seqscan = off');
      const [r] = await em.execute<{ 'QUERY PLAN': unknown }[]>(`EXPLAIN (FORMAT JSON) ${q.sql}`, q.params);
      return r;
    });
    const plan = JSON.stringify(row?.['QUERY PLAN']);
    expect(plan).toContain('"Index Name":"journal_lines_ledger"');
    expect(plan).not.toContain('"Node Type":"Sort"');
  });

  it('property: for random postings, the balance sheet balances at every date and each general ledger closes at the trial balance', async () => {
    const codes = DEFAULT_CHART.map((a) => a.code);
    const day = fc.integer({ min: 0, max: 3 * 365 }).map((n) => new Date(Date.UTC(2024, 0, 1) + n * 86_400_000).toISOString().slice(0, 10));
    const entry = fc.record({
      date: day,
      lines: fc.array(fc.record({ code: fc.constantFrom(...codes), cents: fc.integer({ min: 1, max: 1_000_000 }) }), { minLength: 1, maxLength: 3 }),
      against: fc.constantFrom(...codes),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 12 }), day, fc.integer({ min: 1, max: 12 }), async (entries, asOf, startMonth) => {
        const c = ctx();
        const call = caller(c);
        for (const e of entries) {
          const total = e.lines.reduce((s, l) => s + l.cents, 0);
          await post(c, e.date, 'manual', [...e.lines.map((l): [string, 'debit', number] => [l.code, 'debit', l.cents]), [e.against, 'credit', total]]);
        }
        await data(call('settings.fiscal_year.put', { body: { fiscal_year_start_month: startMonth } }));
        const bs = await data(call('reports.balance_sheet', { query: { as_of: asOf, columns: 'month' } }));
        for (const col of bs.columns) expect(col.total_assets_cents).toBe(col.total_liabilities_cents + col.total_equity_cents);
        const tb = await data(call('reports.trial_balance', { query: { as_of: asOf } }));
        for (const a of tb.accounts) {
          const gl = await data(call('reports.general_ledger', { query: { account_id: a.account_id, from: '2024-01-01', to: asOf, limit: 1 } }));
          const net = a.debit_cents - a.credit_cents;
          expect(gl.closing_balance_cents).toBe(gl.normal_balance === 'debit' ? net : 0 - net);
        }
        // Walking every page of one account's ledger, the last running balance is its closing balance.
        const walked = { account_id: tb.accounts[0].account_id, from: '2024-01-01', to: asOf, limit: 2 };
        let page = await data(call('reports.general_ledger', { query: walked }));
        let last = page.opening_balance_cents;
        for (;;) {
          last = page.lines.at(-1)?.running_balance_cents ?? last;
          if (!page.next_cursor) break;
          page = await data(call('reports.general_ledger', { query: { ...walked, cursor: page.next_cursor } }));
        }
        expect(last).toBe(page.closing_balance_cents);
        // The P&L from the start of as_of's fiscal year to as_of is the balance sheet's current year earnings.
        const fy = `${asOf.slice(0, 4)}-${String(startMonth).padStart(2, '0')}-01`;
        const from = fy <= asOf ? fy : `${Number(asOf.slice(0, 4)) - 1}-${String(startMonth).padStart(2, '0')}-01`;
        const pl = await data(call('reports.profit_and_loss', { query: { from, to: asOf } }));
        expect(pl.net_income_cents).toBe(bs.current_year_earnings_cents);
      }),
      { numRuns: 30 },
    );
  }, 120_000);
  it('property: over a period in which every invoice and bill was settled, cash-basis and accrual net income agree to the cent', async () => {
    const day = fc.integer({ min: 0, max: 700 });
    const dateOf = (n: number) => new Date(Date.UTC(2024, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
    const doc = fc.record({
      kind: fc.constantFrom('invoice' as const, 'bill' as const),
      day,
      // The P&L split of the document: two accounts' shares (pro rata rounding is at stake).
      parts: fc.tuple(fc.integer({ min: 1, max: 99_999 }), fc.integer({ min: 0, max: 99_999 })),
      payments: fc.array(fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 0, max: 30 })), { minLength: 1, maxLength: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(doc, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 500 }), async (docs, fee) => {
        const c = ctx();
        const call = caller(c);
        for (const d of docs) {
          const id = randomUUID();
          const party = randomUUID();
          const total = d.parts[0] + d.parts[1];
          const [ctl, a, b] = d.kind === 'invoice' ? [ACCOUNT.receivable, ACCOUNT.revenue, ACCOUNT.processorFees] : [ACCOUNT.payable, ACCOUNT.expenses, ACCOUNT.processorFees];
          const dims: Partial<Line> = d.kind === 'invoice' ? { customer_id: party, invoice_id: id } : { vendor_id: party, bill_id: id };
          const docSide = d.kind === 'invoice' ? 'debit' : 'credit';
          const other = d.kind === 'invoice' ? 'credit' : 'debit';
          const source =
            d.kind === 'invoice'
              ? { invoice: { id, customer_id: party, issue_date: dateOf(d.day), due_date: dateOf(d.day) } }
              : { bill: { id, vendor_id: party, issue_date: dateOf(d.day), due_date: dateOf(d.day) } };
          const lines: [string, 'debit' | 'credit', number, Partial<Line>?][] = [
            [ctl, docSide, total, dims],
            [a, other, d.parts[0]],
          ];
          if (d.parts[1] > 0) lines.push([b, other, d.parts[1]]);
          await post(c, dateOf(d.day), d.kind, lines, source);
          // Payments: shares of the total by weight, the last one taking the rest; each a few days later.
          const weights = d.payments.reduce((s, p) => s + p[0], 0);
          let paid = 0;
          let at = d.day;
          for (const [i, [w, gap]] of d.payments.entries()) {
            const amount = i === d.payments.length - 1 ? total - paid : Math.floor((total * w) / weights);
            paid += amount;
            at += gap;
            if (amount === 0) continue;
            const cash = ACCOUNT.cash;
            const pay: [string, 'debit' | 'credit', number, Partial<Line>?][] =
              d.kind === 'invoice'
                ? [
                    [cash, 'debit', amount],
                    [ctl, 'credit', amount, dims],
                  ]
                : [
                    [ctl, 'debit', amount, dims],
                    [cash, 'credit', amount],
                  ];
            await post(c, dateOf(at), d.kind === 'invoice' ? 'payment' : 'vendor_payment', pay, d.kind === 'invoice' ? source : { bills: [source.bill] });
          }
        }
        if (fee > 0)
          await post(c, '2025-06-01', 'processor_payout', [
            [ACCOUNT.processorFees, 'debit', fee],
            [ACCOUNT.processorClearing, 'credit', fee],
          ]);
        const q = { from: '2024-01-01', to: '2026-12-31', columns: 'year' };
        const accrual = await data(call('reports.profit_and_loss', { query: { ...q, basis: 'accrual' } }));
        const cash = await data(call('reports.profit_and_loss', { query: { ...q, basis: 'cash' } }));
        expect(cash.net_income_cents).toBe(accrual.net_income_cents);
        expect(cash.revenue.map((r: any) => r.total_cents)).toEqual(accrual.revenue.map((r: any) => r.total_cents));
        expect(cash.expenses.map((r: any) => r.total_cents)).toEqual(accrual.expenses.map((r: any) => r.total_cents));
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
