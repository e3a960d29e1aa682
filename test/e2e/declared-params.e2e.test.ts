import { ROUTES, type RouteDef } from '@acct/contracts';
import { type Item, type ListCase, checkListCase, created, dateBound, eq, page, wholeList } from './declared-params.helpers';
import { type Seed, seed } from './declared-params.seed';
import { type Api, type ReceivablesE2E, expectStatus, startReceivablesE2E } from './receivables.helpers';

/**
 * Every query parameter the route table declares does what the document says (issue 42: a declared
 * parameter that did nothing). The cases are enumerated from the table, not from this file: every
 * declared parameter of every operation is a test of its own, and one without a case below fails.
 * A list's parameter is sent alone against a seeded data set where it must leave out at least one
 * item and keep at least one; a report's changes the figures as the journal says it must.
 */

/** The routes that declare query parameters, with their parameters (the table's own order). */
const QUERIED = ROUTES.filter((r): r is RouteDef & { query: { properties: Record<string, unknown> } } => r.query !== undefined);
const PAIRS = QUERIED.flatMap((r) => Object.keys(r.query.properties).map((param) => [r.operationId, param] as const));

const LISTS: Record<string, Record<string, ListCase>> = {
  listCustomers: { ...page, ...created(), external_customer_id: eq('external_customer_id') },
  listInvoices: { ...page, ...created(), external_invoice_id: eq('external_invoice_id'), status: eq('status'), customer_id: eq('customer_id') },
  listPayments: { ...page, ...created(), external_payment_id: eq('external_payment_id'), invoice_id: eq('invoice_id') },
  listProcessorPayouts: { ...page, ...created(), external_payout_id: eq('external_payout_id'), processor: eq('processor') },
  listEstimates: { ...page, ...created(), external_estimate_id: eq('external_estimate_id'), status: eq('status'), customer_id: eq('customer_id') },
  listEvents: { ...page, ...created(), external_event_id: eq('external_event_id'), event_type: eq('event_type'), status: eq('status'), source: eq('source') },
  listVendors: { ...page, ...created(), external_vendor_id: eq('external_vendor_id'), vendor_type: eq('vendor_type'), is_1099_eligible: eq('is_1099_eligible') },
  listBills: {
    ...page,
    ...created(),
    external_bill_id: eq('external_bill_id'),
    status: eq('status'),
    vendor_id: eq('vendor_id'),
    issue_date_from: dateBound('issue_date', 'from'),
    issue_date_to: dateBound('issue_date', 'to'),
  },
  listVendorPayments: { ...page, ...created(), external_vendor_payment_id: eq('external_vendor_payment_id'), vendor_id: eq('vendor_id'), status: eq('status') },
  listWebhookEndpoints: { ...page, ...created() },
  listWebhookDeliveries: { ...page, ...created() },
  listDocuments: { ...page, ...created(), document_type: eq('document_type'), status: eq('status'), linked_record_id: eq('linked_record_id') },
  /** Ordered by code; accounts have no creation time, so no created bounds (a bound would keep all or none). */
  listAccounts: { ...page },
  listJournalEntries: {
    ...page,
    ...created('posted_at'),
    source_type: eq('source_type'),
    source_id: eq('source_id'),
    from: dateBound('entry_date', 'from'),
    to: dateBound('entry_date', 'to'),
  },
};

interface Ctx {
  api: Api;
  seed: Seed;
  /** Every journal entry of the data set: what the reports must agree with. */
  journal: JournalEntry[];
}
type ReportCase = (c: Ctx) => Promise<void>;
interface JournalEntry {
  entry_date: string;
  lines: { account_code: string; side: 'debit' | 'credit'; amount_cents: number }[];
}

/** Debits − credits of an account's lines in entries dated in [from, to]. */
function net(journal: JournalEntry[], code: string, from = '0000-00-00', to = '9999-99-99'): number {
  let sum = 0;
  for (const e of journal) {
    if (e.entry_date < from || e.entry_date > to) continue;
    for (const l of e.lines) if (l.account_code === code) sum += l.side === 'debit' ? l.amount_cents : -l.amount_cents;
  }
  return sum;
}

async function report(api: Api, path: string, query: string): Promise<any> {
  const r = await api('GET', `${path}?${query}`);
  expectStatus(r, 200);
  return r.json.data;
}

/** The summary over [from, to] against the journal; entries outside it exist (revenue left out) and inside it too. */
async function summaryOver({ api, journal }: Ctx, from: string, to: string): Promise<void> {
  const got = await report(api, '/api/v1/reports/summary', `from=${from}&to=${to}`);
  const revenue = -net(journal, '4000', from, to);
  // Revenue on both sides of the period: the bound keeps some and leaves some out.
  expect({ kept: revenue > 0, leftOut: revenue !== -net(journal, '4000') }).toEqual({ kept: true, leftOut: true });
  expect(got).toMatchObject({
    revenue_cents: revenue,
    accounts_receivable_cents: net(journal, '1100', undefined, to),
    accounts_payable_cents: -net(journal, '2000', undefined, to),
  });
}

const parties = (rows: Record<string, unknown>[], key: string) => rows.map((r) => r[key]);

/** Net income (credits − debits of revenue and expense accounts) of the journal over [from, to]. */
const netIncome = (journal: JournalEntry[], from?: string, to?: string) => 0 - ['4000', '5000', '5200'].reduce((s, code) => s + net(journal, code, from, to), 0);
const ASSETS = ['1000', '1010', '1100', '1200'];

/** The P&L over [from, to] against the journal; entries outside it exist and inside it too. */
async function profitAndLossOver({ api, journal }: Ctx, from: string, to: string): Promise<void> {
  const got = await report(api, '/api/v1/reports/profit-and-loss', `from=${from}&to=${to}`);
  expect(netIncome(journal, from, to)).not.toBe(netIncome(journal));
  expect(got).toMatchObject({ total_revenue_cents: -net(journal, '4000', from, to), net_income_cents: netIncome(journal, from, to) });
}

/** A general ledger over [from, to] (every page of 2 lines) against the journal. */
async function ledgerOver({ api, journal }: Ctx, code: string, from: string, to: string): Promise<void> {
  const id = (await report(api, '/api/v1/accounts', 'limit=100')).find((a: { code: string }) => a.code === code).id;
  const q = `account_id=${id}&from=${from}&to=${to}&limit=2`;
  let page = await report(api, '/api/v1/reports/general-ledger', q);
  const lines = [...page.lines];
  while (page.next_cursor) {
    page = await report(api, '/api/v1/reports/general-ledger', `${q}&cursor=${page.next_cursor}`);
    lines.push(...page.lines);
  }
  const sign = page.normal_balance === 'debit' ? 1 : -1;
  expect(page.opening_balance_cents).toBe(sign * net(journal, code, undefined, new Date(Date.parse(from) - 86_400_000).toISOString().slice(0, 10)) || 0);
  expect(page.closing_balance_cents).toBe(sign * net(journal, code, undefined, to) || 0);
  const count = journal.filter((e) => e.entry_date >= from && e.entry_date <= to).reduce((n, e) => n + e.lines.filter((l) => l.account_code === code).length, 0);
  expect(lines).toHaveLength(count);
  expect(lines.at(-1)?.running_balance_cents ?? page.opening_balance_cents).toBe(page.closing_balance_cents);
}

const REPORTS: Record<string, Record<string, ReportCase>> = {
  getProfitAndLoss: {
    from: (c) => profitAndLossOver(c, '2026-04-01', '9999-12-31'),
    to: (c) => profitAndLossOver(c, '1900-01-01', '2026-04-30'),
    columns: async ({ api, journal }) => {
      const got = await report(api, '/api/v1/reports/profit-and-loss', 'from=2025-01-01&to=2026-12-31&columns=quarter');
      expect(got.columns).toHaveLength(8);
      for (const col of got.columns) expect(col.net_income_cents).toBe(netIncome(journal, col.from, col.to));
    },
    basis: async ({ api }) => {
      // Invoices still open at the end: their revenue is in accrual, not (yet) in cash.
      const open = (await report(api, '/api/v1/reports/accounts-receivable', 'as_of=9999-12-31')).total_open_cents;
      expect(open).toBeGreaterThan(0);
      const q = 'from=1900-01-01&to=9999-12-31';
      const accrual = await report(api, '/api/v1/reports/profit-and-loss', `${q}&basis=accrual`);
      const cash = await report(api, '/api/v1/reports/profit-and-loss', `${q}&basis=cash`);
      expect({ accrual: accrual.basis, cash: cash.basis }).toEqual({ accrual: 'accrual', cash: 'cash' });
      expect(cash.total_revenue_cents).toBeLessThan(accrual.total_revenue_cents);
    },
  },
  getBalanceSheet: {
    as_of: async ({ api, journal }) => {
      const got = await report(api, '/api/v1/reports/balance-sheet', 'as_of=2025-12-31');
      expect(got.total_assets_cents).toBe(ASSETS.reduce((s, code) => s + net(journal, code, undefined, '2025-12-31'), 0));
      expect(got.total_assets_cents).not.toBe(ASSETS.reduce((s, code) => s + net(journal, code), 0));
      expect(got.current_year_earnings_cents).toBe(netIncome(journal, '2025-01-01', '2025-12-31'));
    },
    columns: async ({ api, journal }) => {
      const got = await report(api, '/api/v1/reports/balance-sheet', 'as_of=2026-06-30&columns=month');
      expect(got.columns.map((c: { as_of: string }) => c.as_of)).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30']);
      for (const c of got.columns) expect(c.total_assets_cents).toBe(ASSETS.reduce((s, code) => s + net(journal, code, undefined, c.as_of), 0));
    },
  },
  getGeneralLedger: {
    account_id: async (c) => {
      await ledgerOver(c, '1100', '1900-01-01', '9999-12-31');
      await ledgerOver(c, '4000', '1900-01-01', '9999-12-31');
    },
    from: (c) => ledgerOver(c, '1100', '2026-01-01', '9999-12-31'),
    to: (c) => ledgerOver(c, '1100', '1900-01-01', '2025-12-31'),
    limit: async ({ api }) => {
      const id = (await report(api, '/api/v1/accounts', 'limit=100')).find((a: { code: string }) => a.code === '1100').id;
      const got = await report(api, '/api/v1/reports/general-ledger', `account_id=${id}&from=1900-01-01&to=9999-12-31&limit=1`);
      expect(got.lines).toHaveLength(1);
      expect(got.has_more).toBe(true);
    },
    cursor: (c) => ledgerOver(c, '4000', '1900-01-01', '9999-12-31'),
  },
  getSummaryReport: {
    from: (c) => summaryOver(c, '2026-04-01', '9999-12-31'),
    to: (c) => summaryOver(c, '1900-01-01', '2026-04-30'),
  },
  getAccountsReceivableReport: {
    as_of: async ({ api, seed }) => {
      const got = parties((await report(api, '/api/v1/reports/accounts-receivable', 'as_of=2026-04-01')).customers, 'customer_id');
      expect(got).toContain(seed.earlyCustomer);
      expect(got).not.toContain(seed.lateCustomer);
    },
  },
  getAccountsPayableReport: {
    as_of: async ({ api, seed }) => {
      const got = parties((await report(api, '/api/v1/reports/accounts-payable', 'as_of=2025-12-31')).vendors, 'vendor_id');
      expect(got).toEqual(expect.arrayContaining([seed.vendorA, seed.vendorC]));
      expect(got).not.toContain(seed.vendorB);
    },
  },
  get1099Summary: {
    year: async ({ api, seed }) => {
      const got = parties((await report(api, '/api/v1/reports/1099-summary', 'year=2025')).vendors, 'vendor_id');
      expect(got).toEqual([seed.vendorA]);
    },
    include_ineligible: async ({ api, seed }) => {
      const all = parties((await report(api, '/api/v1/reports/1099-summary', 'year=2025&include_ineligible=true')).vendors, 'vendor_id');
      expect(all.sort()).toEqual([seed.vendorA, seed.vendorC].sort());
      const eligible = parties((await report(api, '/api/v1/reports/1099-summary', 'year=2025&include_ineligible=false')).vendors, 'vendor_id');
      expect(eligible).toEqual([seed.vendorA]);
    },
  },
  getTrialBalance: {
    as_of: async ({ api, journal }) => {
      const asOf = '2025-12-31';
      expect(journal.some((e) => e.entry_date > asOf) && journal.some((e) => e.entry_date <= asOf)).toBe(true);
      const got = (await report(api, '/api/v1/reports/trial-balance', `as_of=${asOf}`)).accounts as { code: string; debit_cents: number; credit_cents: number }[];
      const want = got.map((r) => {
        const n = net(journal, r.code, undefined, asOf);
        return { code: r.code, debit_cents: Math.max(n, 0), credit_cents: Math.max(-n, 0) };
      });
      expect(got.map(({ code, debit_cents, credit_cents }) => ({ code, debit_cents, credit_cents }))).toEqual(want);
    },
  },
};

it('the cases below are those of the declared parameters: one for each, none for an undeclared one', () => {
  const declared = PAIRS.map(([op, param]) => `${op} ${param}`).sort();
  const cases = [...Object.entries(LISTS), ...Object.entries(REPORTS)].flatMap(([op, c]) => Object.keys(c).map((param) => `${op} ${param}`)).sort();
  expect(cases).toEqual(declared);
});

describe('e2e: every declared query parameter changes the result as documented', () => {
  let t: ReceivablesE2E;
  let ctx: Ctx;
  const lists = new Map<string, Promise<Item[]>>();
  beforeAll(async () => {
    t = await startReceivablesE2E('Declared parameters org');
    const s = await seed(t.api, t.e2e.base);
    ctx = { api: t.api, seed: s, journal: (await wholeList(t.api, '/api/v1/journal-entries')) as unknown as JournalEntry[] };
  }, 300_000);
  afterAll(async () => t?.e2e.stop());

  /** The route's path with the seed's ids in it (the deliveries of the seeded endpoint). */
  const pathOf = (r: RouteDef) => r.path.replace('{id}', ctx.seed.endpoint);

  it.each(PAIRS)('%s: %s', async (op, param) => {
    const route = QUERIED.find((r) => r.operationId === op)!;
    const listCase = LISTS[op]?.[param];
    const reportCase = REPORTS[op]?.[param];
    if (!listCase && !reportCase)
      throw new Error(`${op} declares ${param} without a case in declared-params.e2e.test.ts: add one that shows what it excludes, or stop declaring it`);
    if (reportCase) return reportCase(ctx);
    const path = pathOf(route);
    if (!lists.has(path)) lists.set(path, wholeList(t.api, path));
    const all = await lists.get(path)!;
    expect(all.length).toBeGreaterThanOrEqual(3);
    await checkListCase(t.api, path, all, param, listCase!);
  });
});
