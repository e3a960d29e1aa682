import { AppError, type BalanceSheetDto, type Basis, type ColumnKind, type GeneralLedgerDto, type ProfitAndLossDto } from '@acct/contracts';
import type { Scope } from '@acct/kit';
import { ACCOUNT, accountId, normalBalance } from '@acct/ledger';
import { type Period, balanceSheetDates, periodColumns } from '../domain/periods';
import { PL_CODES, accountsOf, balanceSheet, balanceSheetEnds, profitAndLoss } from '../domain/statements';
import { type LedgerCursor, accountCodes, accountNet, bucketTotals, cashBucketTotals, fiscalYearStartMonth, ledgerLines, putFiscalYearStartMonth } from '../queries/statements';
import type { Reads } from './reports';

/** The financial statements (API-DECISIONS §14): each waits for the projection (read-your-writes), then reads. */

export async function fiscalYear(r: Reads, s: Scope): Promise<{ fiscal_year_start_month: number }> {
  return { fiscal_year_start_month: await fiscalYearStartMonth(r.orm, s) };
}

export async function setFiscalYear(r: Reads, s: Scope, startMonth: number): Promise<{ fiscal_year_start_month: number }> {
  return { fiscal_year_start_month: await putFiscalYearStartMonth(r.orm, s, startMonth) };
}

export async function profitAndLossOf(r: Reads, s: Scope, period: Period & { basis: Basis }, kind: ColumnKind): Promise<ProfitAndLossDto> {
  const startMonth = await fiscalYearStartMonth(r.orm, s);
  const columns = periodColumns(period.from, period.to, kind, startMonth);
  const ends = columns.map((c) => c.to);
  await r.fresh.awaitCaughtUp();
  const rows =
    period.basis === 'cash'
      ? await cashBucketTotals(r.orm, s, ends, period.from, PL_CODES, [ACCOUNT.receivable, ACCOUNT.payable])
      : await bucketTotals(r.orm, s, ends, period.from);
  return profitAndLoss(s, period, columns, startMonth, rows);
}

export async function balanceSheetOf(r: Reads, s: Scope, asOf: string, kind: ColumnKind): Promise<BalanceSheetDto> {
  const startMonth = await fiscalYearStartMonth(r.orm, s);
  const dates = balanceSheetDates(asOf, kind, startMonth);
  const ends = balanceSheetEnds(dates, startMonth);
  await r.fresh.awaitCaughtUp();
  return balanceSheet(s, dates, startMonth, ends, await bucketTotals(r.orm, s, ends, null));
}

const invalid = (field: string, issue: string, message: string) => AppError.validation(message, [{ field, issue, message }]);

/** A general ledger page's cursor: the last line given, the running balance after it, and the account and from it belongs to. */
export function encodeLedgerCursor(code: string, from: string, c: LedgerCursor): string {
  return Buffer.from(JSON.stringify([code, from, c.entryDate, c.entryId, c.lineNo, c.balanceCents])).toString('base64url');
}

export function decodeLedgerCursor(cursor: string, code: string, from: string): LedgerCursor {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    v = null;
  }
  const ok =
    Array.isArray(v) &&
    v.length === 6 &&
    v[0] === code &&
    v[1] === from &&
    typeof v[2] === 'string' &&
    /^\d{4}-\d{2}-\d{2}$/.test(v[2]) &&
    typeof v[3] === 'string' &&
    /^[0-9a-f-]{36}$/.test(v[3]) &&
    Number.isSafeInteger(v[4]) &&
    Number.isSafeInteger(v[5]);
  if (!ok) throw invalid('cursor', 'invalid', 'cursor must be the next_cursor of a page of this general ledger (same account_id and from).');
  const [, , entryDate, entryId, lineNo, balanceCents] = v as [string, string, string, string, number, number];
  return { entryDate, entryId, lineNo, balanceCents };
}

/** The account code of an account id of this scope (the chart's, or a code seen in its lines), or 400 naming account_id. */
async function accountCodeOf(r: Reads, s: Scope, id: string): Promise<string> {
  const idOf = (code: string) => accountId(s.organizationId, s.environment, code);
  const want = id.toLowerCase();
  const found = accountsOf([]).find((a) => idOf(a.code) === want) ?? accountsOf(await accountCodes(r.orm, s)).find((a) => idOf(a.code) === want);
  if (!found) throw invalid('account_id', 'not_found', 'account_id must be the id of an account of this organization and environment.');
  return found.code;
}

export interface LedgerPageQuery {
  accountId: string;
  from: string;
  to: string;
  limit: number;
  cursor?: string;
}

/** One page of an account's general ledger: opening and closing balances, and up to limit lines after the cursor with their running balances. */
export async function generalLedgerOf(r: Reads, s: Scope, p: LedgerPageQuery): Promise<GeneralLedgerDto> {
  await r.fresh.awaitCaughtUp();
  const code = await accountCodeOf(r, s, p.accountId);
  const after = p.cursor === undefined ? null : decodeLedgerCursor(p.cursor, code, p.from);
  const account = accountsOf([code]).find((a) => a.code === code)!;
  const debitNormal = normalBalance(account.type) === 'debit';
  /** Debits − credits on the account's normal side (0 - x: never -0). */
  const onSide = (net: number) => (debitNormal ? net : 0 - net);
  const [net, rows] = await Promise.all([accountNet(r.orm, s, code, p.from, p.to), ledgerLines(r.orm, s, code, p.from, p.to, after, p.limit + 1)]);
  let balance = after ? after.balanceCents : onSide(net.opening);
  const lines = rows.slice(0, p.limit).map((l) => {
    const debit = l.side === 'debit' ? l.amountCents : 0;
    const credit = l.side === 'credit' ? l.amountCents : 0;
    balance += onSide(debit - credit);
    return {
      entry_date: l.entryDate,
      entry_id: l.entryId,
      line_no: l.lineNo,
      source_type: l.sourceType,
      source_id: l.sourceId,
      memo: l.memo,
      debit_cents: debit,
      credit_cents: credit,
      running_balance_cents: balance,
    };
  });
  const hasMore = rows.length > p.limit;
  const last = lines[lines.length - 1];
  return {
    account_id: accountId(s.organizationId, s.environment, code),
    code,
    name: account.name,
    normal_balance: normalBalance(account.type),
    from: p.from,
    to: p.to,
    opening_balance_cents: onSide(net.opening),
    lines,
    closing_balance_cents: onSide(net.closing),
    has_more: hasMore,
    next_cursor:
      hasMore && last
        ? encodeLedgerCursor(code, p.from, { entryDate: last.entry_date, entryId: last.entry_id, lineNo: last.line_no, balanceCents: last.running_balance_cents })
        : null,
  };
}
