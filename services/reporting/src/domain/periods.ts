import { AppError, type ColumnKind, STATEMENT_COLUMNS_MAX, limits } from '@acct/contracts';

/**
 * Calendar arithmetic of the statements (API-DECISIONS §14): periods by month, fiscal quarter and
 * fiscal year, and fiscal year starts. Pure; dates are YYYY-MM-DD strings handled as year, month and
 * day numbers (never through Date, whose ISO strings leave 4 digits after 9999-12-31).
 */

/** A period of entry dates, both inclusive. */
export interface Period {
  from: string;
  to: string;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');
/** A month as one number: year × 12 + month − 1. */
const monthIndex = (d: string): number => Number(d.slice(0, 4)) * 12 + Number(d.slice(5, 7)) - 1;
const yearOf = (i: number) => Math.floor(i / 12);
const monthOf = (i: number) => (i % 12) + 1;
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
export const daysInMonth = (y: number, m: number): number => (m === 2 ? (isLeap(y) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31);
/** The first day of a month index. */
export const firstDay = (i: number): string => `${pad(yearOf(i), 4)}-${pad(monthOf(i), 2)}-01`;
/** The last day of a month index. */
export const lastDay = (i: number): string => `${pad(yearOf(i), 4)}-${pad(monthOf(i), 2)}-${pad(daysInMonth(yearOf(i), monthOf(i)), 2)}`;

const STEP: Record<Exclude<ColumnKind, 'total'>, number> = { month: 1, quarter: 3, year: 12 };

/** The month index at which the period of kind that holds month i starts (quarters and years are fiscal). */
function periodStart(i: number, kind: Exclude<ColumnKind, 'total'>, startMonth: number): number {
  const step = STEP[kind];
  return i - ((((i - (startMonth - 1)) % step) + step) % step);
}

/** The first day of the fiscal year that holds date d, for a fiscal year starting in startMonth (1–12). */
export function fiscalYearStart(d: string, startMonth: number): string {
  return firstDay(periodStart(monthIndex(d), 'year', startMonth));
}

/** The day before the fiscal year of d starts (the end of the previous fiscal year). */
export function previousFiscalYearEnd(d: string, startMonth: number): string {
  return lastDay(periodStart(monthIndex(d), 'year', startMonth) - 1);
}

const tooMany = (field: string) =>
  AppError.validation(`The statement would have more than ${STATEMENT_COLUMNS_MAX} columns.`, [
    { field, issue: 'too_many_columns', message: `At most ${STATEMENT_COLUMNS_MAX} columns: choose a shorter period or longer columns.` },
  ]);

/** The columns of [from, to]: one (total), or one per month, fiscal quarter or fiscal year, the first and last cut to from and to. */
export function periodColumns(from: string, to: string, kind: ColumnKind, startMonth: number): Period[] {
  if (kind === 'total') return [{ from, to }];
  const step = STEP[kind];
  const first = periodStart(monthIndex(from), kind, startMonth);
  const last = monthIndex(to);
  if ((last - first) / step + 1 > STATEMENT_COLUMNS_MAX) throw tooMany('columns');
  const out: Period[] = [];
  for (let i = first; i <= last; i += step) {
    // By month index: a period ending after 9999 has no 4-digit date to compare with to.
    out.push({ from: i === first ? from : firstDay(i), to: i + step - 1 >= last ? to : lastDay(i + step - 1) });
  }
  return out;
}

/** How many fiscal years before as_of's the balance sheet's year columns show. */
export const BALANCE_SHEET_PRIOR_YEARS = 4;

/**
 * The dates of a balance sheet's columns, ascending, the last as_of: total, as_of alone; month or
 * quarter, the end of each month or fiscal quarter of as_of's fiscal year before as_of; year, the ends
 * of the fiscal years before as_of's (BALANCE_SHEET_PRIOR_YEARS, none before 1900-01-01).
 */
export function balanceSheetDates(asOf: string, kind: ColumnKind, startMonth: number): string[] {
  if (kind === 'total') return [asOf];
  const fy = periodStart(monthIndex(asOf), 'year', startMonth);
  const ends: string[] = [];
  if (kind === 'year') {
    for (let k = BALANCE_SHEET_PRIOR_YEARS; k >= 1; k--) ends.push(lastDay(fy - 1 - 12 * (k - 1)));
  } else {
    const step = STEP[kind];
    for (let i = fy; i + step - 1 < fy + 12; i += step) ends.push(lastDay(i + step - 1));
  }
  return [...ends.filter((d) => d >= limits.date_min && d < asOf), asOf];
}

/** The inclusive ends of the day buckets a set of dates needs, sorted, each once. */
export const sortedEnds = (dates: readonly string[]): string[] => [...new Set(dates)].sort();
