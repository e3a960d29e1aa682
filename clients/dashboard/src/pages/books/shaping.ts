import type { Account, Aging, JournalEntry, PartyAging, TrialBalance } from './types';

/**
 * Pure data shaping of the books pages: API answers → chart series and table rows. No DOM, no
 * fetch: unit-tested in shaping.test.ts.
 */

/** A calendar month as the summary report's period: `from` and `to` inclusive (UTC dates). */
export interface MonthPeriod {
  /** `2026-11` */
  key: string;
  /** `Nov 2026` */
  label: string;
  from: string;
  to: string;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const day = (d: Date) => d.toISOString().slice(0, 10);

/** The last `count` calendar months up to and including `today`'s (UTC), oldest first. */
export function lastMonths(today: Date, count = 12): MonthPeriod[] {
  const out: MonthPeriod[] = [];
  for (let back = count - 1; back >= 0; back--) {
    const first = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - back, 1));
    const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0));
    const y = first.getUTCFullYear();
    const m = first.getUTCMonth();
    out.push({ key: `${y}-${String(m + 1).padStart(2, '0')}`, label: `${MONTHS[m]} ${y}`, from: day(first), to: day(last) });
  }
  return out;
}

/** Today as YYYY-MM-DD (UTC), the reports' default date. */
export const todayUtc = (now = new Date()): string => day(now);

/** The first day of `today`'s year (UTC). */
export const startOfYear = (now = new Date()): string => `${now.getUTCFullYear()}-01-01`;

/** A real calendar date written YYYY-MM-DD. */
export function isDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && day(d) === value;
}

/** The aging buckets in the order they are read, with their labels. */
export const AGING_BUCKETS: readonly { key: keyof Aging; label: string }[] = [
  { key: 'current', label: 'Current' },
  { key: 'days_1_30', label: '1–30 days' },
  { key: 'days_31_60', label: '31–60 days' },
  { key: 'days_61_90', label: '61–90 days' },
  { key: 'days_over_90', label: 'Over 90 days' },
];

/** An aging object as a series in bucket order (a missing bucket is 0). */
export function agingSeries(aging: Partial<Aging> | null | undefined): number[] {
  return AGING_BUCKETS.map((b) => aging?.[b.key] ?? 0);
}

/** The receivable or payable report's parties as rows under one id name. */
export function partyRows<P extends { display_name: string | null; open_cents: number; aging: Aging }>(parties: readonly P[], idOf: (p: P) => string): PartyAging[] {
  return parties.map((p) => ({ id: idOf(p), display_name: p.display_name, open_cents: p.open_cents, aging: p.aging })).sort((a, b) => b.open_cents - a.open_cents);
}

/** The subtypes of the accounts that hold money (API-DECISIONS §7: 1000 cash, 1010 bank, 1200 clearing). */
const MONEY_SUBTYPES = ['cash', 'bank', 'clearing'];

/** The accounts that hold money, by code, and the cash on hand (cash and bank; clearing is in transit). */
export function cashPosition(accounts: readonly Account[]): { accounts: Account[]; onHandCents: number; inTransitCents: number } {
  const money = accounts.filter((a) => a.type === 'asset' && a.subtype !== null && MONEY_SUBTYPES.includes(a.subtype)).sort((a, b) => a.code.localeCompare(b.code));
  const sum = (list: Account[]) => list.reduce((s, a) => s + a.balance_cents, 0);
  return {
    accounts: money,
    onHandCents: sum(money.filter((a) => a.subtype !== 'clearing')),
    inTransitCents: sum(money.filter((a) => a.subtype === 'clearing')),
  };
}

/** An entry's total: the sum of its debit lines (equal to its credits when it balances). */
export function entryTotal(entry: Pick<JournalEntry, 'lines'>): number {
  return entry.lines.filter((l) => l.side === 'debit').reduce((s, l) => s + l.amount_cents, 0);
}

/** Whether an entry's debits equal its credits. */
export function entryBalances(entry: Pick<JournalEntry, 'lines'>): boolean {
  const credits = entry.lines.filter((l) => l.side === 'credit').reduce((s, l) => s + l.amount_cents, 0);
  return credits === entryTotal(entry);
}

/** An entry's lines as one line of text (the CSV's cell): `Dr 1100 125.00; Cr 4000 125.00`. */
export function linesText(entry: Pick<JournalEntry, 'lines'>, format: (cents: number) => string): string {
  return entry.lines.map((l) => `${l.side === 'debit' ? 'Dr' : 'Cr'} ${l.account_code} ${format(l.amount_cents)}`).join('; ');
}

/** The trial balance's accounts that moved (a debit or a credit), by code. */
export function trialBalanceRows(tb: Pick<TrialBalance, 'accounts'>): TrialBalance['accounts'] {
  return tb.accounts.filter((a) => a.debit_cents !== 0 || a.credit_cents !== 0).sort((a, b) => a.code.localeCompare(b.code));
}

/** The largest `count` values by `value`, the rest summed under "Others" (a chart stays readable at 360 px). */
export function topWithOthers<T>(rows: readonly T[], label: (r: T) => string, value: (r: T) => number, count = 8): { labels: string[]; data: number[] } {
  const sorted = [...rows].sort((a, b) => value(b) - value(a));
  const top = sorted.slice(0, count);
  const rest = sorted.slice(count).reduce((s, r) => s + value(r), 0);
  const labels = top.map(label);
  const data = top.map(value);
  if (sorted.length > count) {
    labels.push(`Others (${sorted.length - count})`);
    data.push(rest);
  }
  return { labels, data };
}

/** A short form of an id for link texts: its first 8 characters. */
export const shortId = (id: string): string => id.slice(0, 8);

/** A status as a word: `partially_paid` → `partially paid`. */
export const statusText = (status: string): string => status.replace(/_/g, ' ');

/** The calendar months that a period touches, each clipped to the period; at most `max` (the last ones). */
export function monthsBetween(from: string, to: string, max = 24): MonthPeriod[] {
  if (!isDay(from) || !isDay(to) || from > to) return [];
  const end = new Date(`${to}T00:00:00Z`);
  const start = new Date(`${from}T00:00:00Z`);
  const count = (end.getUTCFullYear() - start.getUTCFullYear()) * 12 + end.getUTCMonth() - start.getUTCMonth() + 1;
  return lastMonths(end, Math.min(count, max)).map((m) => ({ ...m, from: m.from < from ? from : m.from, to: m.to > to ? to : m.to }));
}
