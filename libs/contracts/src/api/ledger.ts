import { Optional, type Static, type TArray, type TInteger, type TObject, type TString, Type } from '@sinclair/typebox';
import { operations } from '../operations';
import { type RouteSpec, recordRoutes, routesOf } from '../routes';
import { Nullable, StringEnum, createdFilters, cursorQuery, date, dateTime, idParams, listEnvelope, obj, paginationQuery, singleEnvelope, uuid } from '../schemas/common';

/** Reporting: the ledger read model (chart of accounts, journal entries) and the reports of API-DECISIONS §8. */

const signedCents = Type.Integer();
const asOf = Optional(Type.String({ format: 'date', description: 'The report date (inclusive), YYYY-MM-DD; default today (UTC).' }));

const ACCOUNT_TYPES = ['asset', 'liability', 'equity', 'revenue', 'expense'] as const;
export const account = obj({
  id: uuid,
  code: Type.String(),
  name: Type.String(),
  type: StringEnum(ACCOUNT_TYPES),
  subtype: Nullable(Type.String()),
  normal_balance: StringEnum(['debit', 'credit'] as const),
  debit_total_cents: signedCents,
  credit_total_cents: signedCents,
  balance_cents: Type.Integer({ description: 'Debits − credits for debit-normal accounts, credits − debits otherwise.' }),
});
export type AccountDto = Static<typeof account>;
/**
 * The chart's accounts have no creation time (they exist from the first instant of any books), so
 * the list takes no created[...] bounds: a bound that keeps all or nothing would filter nothing.
 */
export const accountListQuery = obj({ ...cursorQuery });
export const accountResponse = singleEnvelope('account', account);
export const accountListResponse = listEnvelope('accounts', account);

const journalLine = obj({
  account_id: uuid,
  account_code: Type.String(),
  side: StringEnum(['debit', 'credit'] as const),
  amount_cents: Type.Integer(),
  customer_id: Nullable(uuid),
  invoice_id: Nullable(uuid),
  vendor_id: Nullable(uuid),
  bill_id: Nullable(uuid),
});
const journalEntry = obj({
  id: uuid,
  entry_date: date,
  source_type: Type.String(),
  source_id: uuid,
  memo: Nullable(Type.String()),
  reverses_entry_id: Nullable(uuid),
  posted_at: dateTime,
  lines: Type.Array(journalLine),
});
export const journalEntryListQuery = obj({
  ...paginationQuery,
  ...createdFilters('posted (posted_at, the time the list is ordered by)'),
  source_type: Optional(Type.String({ minLength: 1, maxLength: 64 })),
  source_id: Optional(uuid),
  from: Optional(Type.String({ format: 'date', description: 'Entries dated on or after this date.' })),
  to: Optional(Type.String({ format: 'date', description: 'Entries dated on or before this date.' })),
});
export const journalEntryListResponse = listEnvelope('journal_entries', journalEntry);

export const summaryQuery = obj({
  from: Type.String({ format: 'date', description: 'First entry date (inclusive).' }),
  to: Type.String({ format: 'date', description: 'Last entry date (inclusive); not before from.' }),
});
const summary = obj({ from: date, to: date, revenue_cents: signedCents, accounts_receivable_cents: signedCents, accounts_payable_cents: signedCents });
export const summaryResponse = singleEnvelope('report_summary', summary);

const agingBuckets = obj({ current: signedCents, days_1_30: signedCents, days_31_60: signedCents, days_61_90: signedCents, days_over_90: signedCents });
export type AgingBucketsDto = Static<typeof agingBuckets>;
export const agingQuery = obj({ as_of: asOf });
type AgingRow<P extends string> = TObject<
  { [K in `${P}_id`]: typeof uuid } & { display_name: ReturnType<typeof Nullable<TString>>; open_cents: TInteger; aging: typeof agingBuckets }
>;
/** An aging report of open balances by party (customer or vendor): totals, buckets, one row per party. */
function agingReport<P extends 'customer' | 'vendor'>(party: P) {
  const row = obj({ [`${party}_id`]: uuid, display_name: Nullable(Type.String()), open_cents: signedCents, aging: agingBuckets }) as AgingRow<P>;
  type Members = { as_of: typeof date; total_open_cents: TInteger; aging: typeof agingBuckets } & { [K in `${P}_count`]: TInteger } & { [K in `${P}s`]: TArray<AgingRow<P>> };
  return obj({ as_of: date, total_open_cents: signedCents, [`${party}_count`]: Type.Integer(), aging: agingBuckets, [`${party}s`]: Type.Array(row) } as Members);
}
export const receivablesReportResponse = singleEnvelope('accounts_receivable', agingReport('customer'));
export const payablesReportResponse = singleEnvelope('accounts_payable', agingReport('vendor'));

export const form1099Query = obj({
  year: Type.String({ pattern: '^[0-9]{4}$', description: 'The reporting year, 4 digits.' }),
  include_ineligible: Optional(Type.Boolean({ default: false, description: 'Also list vendors that are not 1099-eligible (never counted in the totals).' })),
});
const form1099Vendor = obj({
  vendor_id: uuid,
  display_name: Nullable(Type.String()),
  is_1099_eligible: Type.Boolean(),
  w9_on_file: Type.Boolean(),
  paid_cents: signedCents,
  reportable: Type.Boolean({ description: 'Eligible and paid at or over the threshold.' }),
});
const form1099Report = obj({
  reporting_year: Type.Integer(),
  threshold_cents: Type.Integer(),
  total_reportable_paid_cents: signedCents,
  eligible_vendor_count: Type.Integer(),
  missing_w9_count: Type.Integer(),
  vendors: Type.Array(form1099Vendor),
});
export type Form1099ReportDto = Static<typeof form1099Report>;
export const form1099Response = singleEnvelope('tax_1099_summary', form1099Report);

export const trialBalanceQuery = obj({ as_of: asOf });
const trialBalanceRow = obj({
  account_id: uuid,
  code: Type.String(),
  name: Type.String(),
  type: StringEnum(ACCOUNT_TYPES),
  debit_cents: signedCents,
  credit_cents: signedCents,
});
const trialBalance = obj({
  as_of: date,
  accounts: Type.Array(trialBalanceRow),
  total_debit_cents: signedCents,
  total_credit_cents: signedCents,
  balanced: Type.Boolean(),
});
export const trialBalanceResponse = singleEnvelope('trial_balance', trialBalance);

/** One posting service's journal chain as the verifier re-computed it (API-DECISIONS §12). */
export const ledgerChain = obj({
  service: Type.String({ description: 'The posting service whose journal this chain is (receivables, payables).' }),
  entries: Type.Integer({ minimum: 0, description: 'Entries of the chain checked (up to the first broken one).' }),
  head_hash: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'The hash the chain’s head records (SHA-256, hex).' }),
  // null when intact; else the first entry affected (for a deleted last entry, the deleted entry's id).
  first_broken_entry_id: Nullable(uuid),
});
export type LedgerChainDto = Static<typeof ledgerChain>;
const ledgerVerification = obj({
  status: StringEnum(['intact', 'broken'] as const),
  entries_checked: Type.Integer({ minimum: 0 }),
  chains: Type.Array(ledgerChain),
});
export type LedgerVerificationDto = Static<typeof ledgerVerification>;
export const ledgerVerificationResponse = singleEnvelope('ledger_verification', ledgerVerification);

/**
 * How long reporting waits for one posting service's chain verification (its time grows with the
 * chain: test/bench/chain-verify.ts measures it, issue #25), and the gateway for the route's answer: a
 * little longer, so that a posting service too slow to answer shows as reporting's 503 with its
 * name rather than the gateway's own timeout.
 */
export const LEDGER_CHAIN_TIMEOUT_MS = 60_000;
export const LEDGER_VERIFICATION_TIMEOUT_MS = LEDGER_CHAIN_TIMEOUT_MS + 5_000;

/** Each posting service verifies its own chain (asked by reporting, which answers the route). */
export const receivablesChainOperations = operations('receivables', {
  'ledger_chain.receivables': { reply: ledgerChain, internal: true, timeoutMs: LEDGER_CHAIN_TIMEOUT_MS },
});
export const payablesChainOperations = operations('payables', {
  'ledger_chain.payables': { reply: ledgerChain, internal: true, timeoutMs: LEDGER_CHAIN_TIMEOUT_MS },
});
/** The chain operation of each posting service, in the order the verification lists them. */
export const LEDGER_CHAIN_OPERATIONS = { receivables: 'ledger_chain.receivables', payables: 'ledger_chain.payables' } as const;

export const ledgerOperations = operations('reporting', {
  'ledger.verification': { reply: ledgerVerificationResponse, timeoutMs: LEDGER_VERIFICATION_TIMEOUT_MS },
  'accounts.list': { query: accountListQuery, reply: accountListResponse },
  'accounts.get': { params: idParams, reply: accountResponse },
  'journal_entries.list': { query: journalEntryListQuery, reply: journalEntryListResponse },
  'reports.summary': { query: summaryQuery, reply: summaryResponse },
  'reports.accounts_receivable': { query: agingQuery, reply: receivablesReportResponse },
  'reports.accounts_payable': { query: agingQuery, reply: payablesReportResponse },
  'reports.form_1099': { query: form1099Query, reply: form1099Response },
  'reports.trial_balance': { query: trialBalanceQuery, reply: trialBalanceResponse },
});

const READ_YOUR_WRITES =
  'Read-your-writes: a read after a write that returned 2xx includes it; if the projection cannot catch up within a few seconds the answer is 503 service_unavailable with Retry-After, never a stale figure.';
const FROM_AFTER_TO = 'from after to is 400 validation_failed. ';
/** The ledger read model (tag Ledger): accounts and journal entries. */
const accounts = recordRoutes(ledgerOperations, { resource: 'accounts', name: 'Account', path: '/api/v1/accounts', tag: 'Ledger', module: 'reports' });
const route = routesOf(ledgerOperations, { tag: 'Reports', module: 'reports' });
export const ledgerRoutes: RouteSpec[] = [
  accounts.list(
    {
      summary: 'The chart of accounts with each account’s debit and credit totals and balance.',
      description:
        'Ordered by code. Accounts have no creation time (the chart exists from the first instant of any books): this list takes no created[...] bounds (400 validation_failed naming the parameter). ' +
        READ_YOUR_WRITES,
    },
    'A page of accounts, by code.',
  ),
  accounts.get({ summary: 'One account with its balance.', description: READ_YOUR_WRITES }, 'The account.'),
  accounts.route('journal_entries.list', {
    operationId: 'listJournalEntries',
    method: 'GET',
    path: '/api/v1/journal-entries',
    summary: 'Journal entries with their lines, newest first; filter by source_type, source_id and entry date from/to.',
    description: FROM_AFTER_TO + READ_YOUR_WRITES,
    statuses: { 200: 'A page of journal entries.' },
  }),
  accounts.route('ledger.verification', {
    operationId: 'getLedgerVerification',
    method: 'GET',
    path: '/api/v1/ledger/verification',
    summary: 'Re-computes the hash chain of every posting service’s journal of this organization and environment: intact, or broken at the first entry affected.',
    description:
      'Each journal entry carries a SHA-256 hash over the previous entry’s hash and its own content with its lines. A change made directly in the database (an amount, an account, a date, a line, a deleted or an inserted entry) shows as broken. Reads the journals themselves, not the projection; its time grows with the number of entries. Each posting service’s chain is given up to 60 s and the answer up to 65 s (not the 5 s of other routes); a chain that takes longer answers 503 service_unavailable, and operators verify it without a time bound with `npm run admin -- ledger verify`.',
    statuses: { 200: 'The verification.' },
  }),
  route('reports.summary', {
    operationId: 'getSummaryReport',
    method: 'GET',
    path: '/api/v1/reports/summary',
    summary: 'Revenue over [from, to] and the A/R (and A/P) balance at the end of to.',
    description: FROM_AFTER_TO + READ_YOUR_WRITES,
    statuses: { 200: 'The summary.' },
  }),
  route('reports.accounts_receivable', {
    operationId: 'getAccountsReceivableReport',
    method: 'GET',
    path: '/api/v1/reports/accounts-receivable',
    summary: 'Open A/R as of as_of: total, customers with a balance, aging buckets by due date, one row per customer.',
    description: READ_YOUR_WRITES,
    statuses: { 200: 'The A/R report.' },
  }),
  route('reports.accounts_payable', {
    operationId: 'getAccountsPayableReport',
    method: 'GET',
    path: '/api/v1/reports/accounts-payable',
    summary: 'Open A/P as of as_of: total, vendors with a balance, aging buckets by due date, one row per vendor.',
    description: READ_YOUR_WRITES,
    module: 'bills_ap',
    statuses: { 200: 'The A/P report.' },
  }),
  route('reports.form_1099', {
    operationId: 'get1099Summary',
    method: 'GET',
    path: '/api/v1/reports/1099-summary',
    summary: 'Payments to vendors in a year against the 1099 threshold (60000 cents up to 2025, 200000 from 2026).',
    description:
      'Paid = posted vendor payments never reversed, by payment date. Totals count 1099-eligible vendors at or over the threshold; include_ineligible=true lists ineligible vendors (flagged), never in the totals. ' +
      READ_YOUR_WRITES,
    module: 'tax_1099',
    statuses: { 200: 'The 1099 summary.' },
  }),
  route('reports.trial_balance', {
    operationId: 'getTrialBalance',
    method: 'GET',
    path: '/api/v1/reports/trial-balance',
    summary: 'Every account’s balance as of as_of in the debit or credit column; the two columns are equal.',
    description: READ_YOUR_WRITES,
    statuses: { 200: 'The trial balance.' },
  }),
];
