import { AppError, isCalendarDate, limits, utcDateOf } from '@acct/contracts';

/** The one calendar-date check lives in contracts (ajv's date format uses it too). */
export { isCalendarDate };

/**
 * The accounting date of a timestamp field: a plain date as given, a date-time by its UTC date.
 * Both must lie in limits.date_min … date_max (the date-time's UTC date too).
 */
export function accountingDate(value: string, field: string): string {
  if (isCalendarDate(value)) return value;
  const utc = utcDateOf(value);
  if (utc === null) {
    throw AppError.validation(`${field} is not a valid date or date-time.`, [
      { field: `/${field}`, issue: 'invalid_format', message: `Use YYYY-MM-DD or an ISO 8601 date-time with an offset, from ${limits.date_min} to ${limits.date_max} (UTC).` },
    ]);
  }
  return utc;
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
