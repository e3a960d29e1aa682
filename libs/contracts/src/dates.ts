import { limits } from './limits';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A 4-digit year from `min` on as regex source: the year with its trailing zeros free, then each
 * higher digit at each place (1900 → `19[0-9]{2}|[2-9][0-9]{3}`).
 */
function yearFromPattern(min: string): string {
  const kept = min.replace(/0+$/, '');
  const digits = (n: number) => (n > 0 ? `[0-9]{${n}}` : '');
  const out = [`${kept}${digits(min.length - kept.length)}`];
  for (let i = kept.length - 1; i >= 0; i--) {
    const d = Number(kept[i]);
    if (d < 9) out.push(`${kept.slice(0, i)}${d === 8 ? '9' : `[${d + 1}-9]`}${digits(min.length - 1 - i)}`);
  }
  return out.join('|');
}

const YEAR = `(${yearFromPattern(limits.date_min.slice(0, 4))})`;
/**
 * isCalendarDate's rule as a JSON Schema pattern, for the OpenAPI document (openapi-schemas.ts):
 * YYYY-MM-DD from limits.date_min on (with format date: a real calendar date, up to date_max).
 */
export const DATE_PATTERN = `^${YEAR}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$`;
/** A date-time's own date from limits.date_min on (its UTC date too, said in its description). */
export const DATE_TIME_PATTERN = `^${YEAR}-`;
/** RFC 3339 date-time: seconds required, an offset (Z or ±hh:mm) required. */
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * The one date check of the code base: a real calendar date in YYYY-MM-DD (no 2026-02-30) within
 * limits.date_min … limits.date_max. ajv's `date` format, the date-time check and libs/ledger use it.
 */
export function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  if (value < limits.date_min || value > limits.date_max) return false;
  // Arithmetic, not a Date round trip: reporting checks every date of every event it applies.
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The UTC date (YYYY-MM-DD) of an RFC 3339 date-time, or null when the value is not one, or when
 * its own date or its UTC date (after applying the offset) is not a calendar date in range.
 */
export function utcDateOf(value: string): string | null {
  const m = DATE_TIME.exec(value);
  if (!m || !isCalendarDate(m[1]!)) return null;
  const [hour, minute, second] = [Number(m[2]), Number(m[3]), Number(m[4])];
  if (hour > 23 || minute > 59 || second > 59) return null;
  // In UTC already (every date-time the services write): its own date, checked above, with no
  // Date round trip (4.8% of reporting's CPU in a post-invoice burst: it checks every event).
  if (!m[6]) return m[1]!;
  const [oh, om] = [Number(m[7]), Number(m[8])];
  if (oh > 23 || om > 59) return null;
  const offsetMinutes = (m[6] === '-' ? -1 : 1) * (oh * 60 + om);
  const t = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`) - offsetMinutes * 60_000;
  if (Number.isNaN(t)) return null;
  const utc = new Date(t).toISOString().slice(0, 10); // past year 9999 this reads "+010000-…": refused below
  return isCalendarDate(utc) ? utc : null;
}

/** A date-time in range (see utcDateOf). */
export function isDateTime(value: string): boolean {
  return utcDateOf(value) !== null;
}
