import { AppError } from '@acct/contracts';

/** The accounting date of a timestamp field: a plain date as given, a date-time by its UTC date. */
export function accountingDate(value: string, field: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw AppError.validation(`${field} is not a valid date or date-time.`, [{ field: `/${field}`, issue: 'invalid_format', message: 'Use YYYY-MM-DD or ISO 8601.' }]);
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
