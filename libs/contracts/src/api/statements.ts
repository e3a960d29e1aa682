import { Optional, type Static, Type } from '@sinclair/typebox';
import { limits } from '../limits';
import { operations } from '../operations';
import { type RouteSpec, routesOf } from '../routes';
import { Nullable, StringEnum, date, obj, singleEnvelope, uuid } from '../schemas/common';

/**
 * The financial statements (API-DECISIONS §14, item 1): the fiscal year setting, profit and loss,
 * balance sheet and general ledger, all made by reporting from its read model.
 */

const cents = Type.Integer();
/** The most columns a statement answers (a longer period with month columns is 400 validation_failed). */
export const STATEMENT_COLUMNS_MAX = 400;
export const COLUMN_KINDS = ['total', 'month', 'quarter', 'year'] as const;
export type ColumnKind = (typeof COLUMN_KINDS)[number];
export const BASES = ['accrual', 'cash'] as const;
export type Basis = (typeof BASES)[number];

const fiscalYear = obj({
  fiscal_year_start_month: Type.Integer({ minimum: 1, maximum: 12, description: 'The month (1–12) a fiscal year starts on its first day; 1 (January) when never set.' }),
});
export type FiscalYearDto = Static<typeof fiscalYear>;
export const fiscalYearBody = fiscalYear;
export const fiscalYearResponse = singleEnvelope('fiscal_year', fiscalYear);

const columnsParam = (what: string) =>
  Optional(
    StringEnum(COLUMN_KINDS, {
      default: 'total',
      description: `${what} Quarters and years are fiscal (they start on the fiscal year's start month). At most ${STATEMENT_COLUMNS_MAX} columns.`,
    }),
  );

export const profitAndLossQuery = obj({
  from: Type.String({ format: 'date', description: 'First entry date (inclusive).' }),
  to: Type.String({ format: 'date', description: 'Last entry date (inclusive); not before from.' }),
  columns: columnsParam('total: one column for [from, to]; month, quarter, year: one column per period, the first and last cut to from and to.'),
  basis: Optional(
    StringEnum(BASES, {
      default: 'accrual',
      description:
        'accrual: amounts by entry date. cash: an invoice’s or bill’s amounts, pro rata to its lines’ accounts, on the dates it was paid (a refund or a reversed payment takes its share back), and every other entry’s (a processor payout’s fee) by its date.',
    }),
  ),
});
const period = { from: date, to: date };
const statementTotals = { total_revenue_cents: cents, total_expenses_cents: cents, net_income_cents: cents };
const plRow = obj({
  account_id: uuid,
  code: Type.String(),
  name: Type.String(),
  type: StringEnum(['revenue', 'expense'] as const),
  amounts_cents: Type.Array(cents, { description: 'The amount of each column, in the order of columns: credits − debits for revenue, debits − credits for expenses.' }),
  total_cents: cents,
});
const profitAndLoss = obj({
  ...period,
  basis: StringEnum(BASES),
  fiscal_year_start_month: Type.Integer({ minimum: 1, maximum: 12 }),
  columns: Type.Array(obj({ ...period, ...statementTotals })),
  revenue: Type.Array(plRow),
  expenses: Type.Array(plRow),
  ...statementTotals,
});
export type ProfitAndLossDto = Static<typeof profitAndLoss>;
export const profitAndLossResponse = singleEnvelope('profit_and_loss', profitAndLoss);

export const balanceSheetQuery = obj({
  as_of: Optional(Type.String({ format: 'date', description: 'The statement date (inclusive), YYYY-MM-DD; default today (UTC).' })),
  columns: columnsParam(
    'total: one column, as_of; month, quarter: the end of each month or quarter of as_of’s fiscal year up to as_of, then as_of; year: the ends of the four fiscal years before as_of’s (from 1900), then as_of.',
  ),
});
const bsRow = obj({
  account_id: uuid,
  code: Type.String(),
  name: Type.String(),
  type: StringEnum(['asset', 'liability', 'equity'] as const),
  balances_cents: Type.Array(cents, { description: 'The balance on the account’s normal side at each column’s date.' }),
});
const bsColumn = obj({
  as_of: date,
  total_assets_cents: cents,
  total_liabilities_cents: cents,
  retained_earnings_cents: Type.Integer({ description: 'Net income of every fiscal year ended before this date’s fiscal year.' }),
  current_year_earnings_cents: Type.Integer({ description: 'Net income from the start of this date’s fiscal year to the date.' }),
  total_equity_cents: Type.Integer({ description: 'Equity accounts + retained earnings + current year earnings; equals total assets − total liabilities.' }),
});
const balanceSheet = obj({
  as_of: date,
  fiscal_year_start_month: Type.Integer({ minimum: 1, maximum: 12 }),
  columns: Type.Array(bsColumn),
  assets: Type.Array(bsRow),
  liabilities: Type.Array(bsRow),
  equity: Type.Array(bsRow),
  total_assets_cents: cents,
  total_liabilities_cents: cents,
  retained_earnings_cents: cents,
  current_year_earnings_cents: cents,
  total_equity_cents: cents,
});
export type BalanceSheetDto = Static<typeof balanceSheet>;
export const balanceSheetResponse = singleEnvelope('balance_sheet', balanceSheet);

export const generalLedgerQuery = obj({
  account_id: uuid,
  from: Type.String({ format: 'date', description: 'First entry date (inclusive).' }),
  to: Type.String({ format: 'date', description: 'Last entry date (inclusive); not before from.' }),
  limit: Optional(Type.Integer({ minimum: 1, maximum: limits.page_limit_max, default: limits.page_limit_default, description: 'Lines per page.' })),
  cursor: Optional(Type.String({ minLength: 1, maxLength: 200, description: 'next_cursor of the previous page: the lines after it.' })),
});
const glLine = obj({
  entry_date: date,
  entry_id: uuid,
  line_no: Type.Integer(),
  source_type: Type.String(),
  source_id: uuid,
  memo: Nullable(Type.String()),
  debit_cents: cents,
  credit_cents: cents,
  running_balance_cents: Type.Integer({ description: 'The balance on the account’s normal side after this line.' }),
});
const generalLedger = obj({
  account_id: uuid,
  code: Type.String(),
  name: Type.String(),
  normal_balance: StringEnum(['debit', 'credit'] as const),
  ...period,
  opening_balance_cents: Type.Integer({ description: 'The balance of every line dated before from.' }),
  lines: Type.Array(glLine, { description: 'Lines dated in [from, to], by entry date, entry id and line number.' }),
  closing_balance_cents: Type.Integer({ description: 'The balance of every line dated on or before to.' }),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String({ description: 'Give it as cursor for the next page; null on the last page.' })),
});
export type GeneralLedgerDto = Static<typeof generalLedger>;
export const generalLedgerResponse = singleEnvelope('general_ledger', generalLedger);

export const statementOperations = operations('reporting', {
  'settings.fiscal_year.get': { reply: fiscalYearResponse },
  'settings.fiscal_year.put': { body: fiscalYearBody, reply: fiscalYearResponse },
  'reports.profit_and_loss': { query: profitAndLossQuery, reply: profitAndLossResponse },
  'reports.balance_sheet': { query: balanceSheetQuery, reply: balanceSheetResponse },
  'reports.general_ledger': { query: generalLedgerQuery, reply: generalLedgerResponse },
});

const READ_YOUR_WRITES =
  'Read-your-writes: a read after a write that returned 2xx includes it; if the projection cannot catch up within a few seconds the answer is 503 service_unavailable with Retry-After, never a stale figure.';
const FROM_AFTER_TO = 'from after to is 400 validation_failed. ';
const settings = routesOf(statementOperations, { tag: 'Settings', module: 'embedded_settings' });
const route = routesOf(statementOperations, { tag: 'Reports', module: 'reports' });

export const statementRoutes: RouteSpec[] = [
  settings('settings.fiscal_year.get', {
    operationId: 'getFiscalYear',
    method: 'GET',
    path: '/api/v1/settings/fiscal-year',
    summary: 'Get the month the fiscal year starts (1 when never set): it dates the balance sheet’s retained earnings and the statements’ fiscal quarters and years.',
    statuses: { 200: 'The fiscal year setting.' },
  }),
  settings('settings.fiscal_year.put', {
    operationId: 'putFiscalYear',
    method: 'PUT',
    path: '/api/v1/settings/fiscal-year',
    summary: 'Set the month (1–12) the fiscal year starts; the statements use it from the next request.',
    statuses: { 200: 'The fiscal year setting now in force.' },
  }),
  route('reports.profit_and_loss', {
    operationId: 'getProfitAndLoss',
    method: 'GET',
    path: '/api/v1/reports/profit-and-loss',
    summary: 'Profit and loss over [from, to]: each revenue and expense account’s amount per column, with total revenue, total expenses and net income per column and in total.',
    description: FROM_AFTER_TO + READ_YOUR_WRITES,
    statuses: { 200: 'The profit and loss statement.' },
  }),
  route('reports.balance_sheet', {
    operationId: 'getBalanceSheet',
    method: 'GET',
    path: '/api/v1/reports/balance-sheet',
    summary:
      'Balance sheet as of as_of (and the dates of its columns): assets, liabilities and equity, with retained earnings and current year earnings; assets = liabilities + equity.',
    description: READ_YOUR_WRITES,
    statuses: { 200: 'The balance sheet.' },
  }),
  route('reports.general_ledger', {
    operationId: 'getGeneralLedger',
    method: 'GET',
    path: '/api/v1/reports/general-ledger',
    summary: 'One account’s lines over [from, to] with the opening balance, each line’s running balance and the closing balance; pages by cursor.',
    description:
      'Pages walk the lines by (entry date, entry id, line number) from a cursor, at the same cost at any depth. An account_id that is not an account of this organization and environment is 400 validation_failed. ' +
      FROM_AFTER_TO +
      READ_YOUR_WRITES,
    statuses: { 200: 'A page of the general ledger.' },
  }),
];
