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

const REPORTS: Record<string, Record<string, ReportCase>> = {
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
