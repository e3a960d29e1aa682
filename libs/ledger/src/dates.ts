import { AppError } from '@acct/contracts';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

/** A real calendar date in YYYY-MM-DD (no 2026-02-30). */
export function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value;
}

/** The accounting date of a timestamp field: a plain date as given, a date-time by its UTC date. */
export function accountingDate(value: string, field: string): string {
  const bad = () =>
    AppError.validation(`${field} is not a valid date or date-time.`, [
      { field: `/${field}`, issue: 'invalid_format', message: 'Use YYYY-MM-DD or an ISO 8601 date-time with an offset.' },
    ]);
  if (isCalendarDate(value)) return value;
  const m = DATE_TIME.exec(value);
  if (!m || !isCalendarDate(m[1]!)) throw bad();
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw bad();
  return new Date(t).toISOString().slice(0, 10);
}

export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export function requireOrder(first: string, second: string, firstField: string, secondField: string): void {
  if (second < first) {
    throw AppError.validation(`${secondField} must be on or after ${firstField}.`, [
      { field: `/${secondField}`, issue: 'before_' + firstField, message: `${secondField} ${second} is before ${firstField} ${first}.` },
    ]);
  }
}
