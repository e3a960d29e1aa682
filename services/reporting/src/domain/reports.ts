import { type AccountDef, DEFAULT_CHART, accountId, normalBalance, type LedgerEnvironment } from '@acct/ledger';
import { type AccountDto, type AgingBucketsDto, AppError, type Form1099ReportDto, limits } from '@acct/contracts';

/** Pure report arithmetic (API-DECISIONS §8): no I/O. */

export type Bucket = keyof AgingBucketsDto;
const DAY_MS = 86_400_000;

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** Days late (as_of − due date) up to which each bucket holds, in order; later than the last: days_over_90. */
export const BUCKET_UPTO: readonly (readonly [number, Bucket])[] = [
  [0, 'current'],
  [30, 'days_1_30'],
  [60, 'days_31_60'],
  [90, 'days_61_90'],
];
export const LATEST_BUCKET: Bucket = 'days_over_90';
/** Days late after which an amount is in LATEST_BUCKET (the last bound of BUCKET_UPTO). */
export const RECENT_DAYS: number = BUCKET_UPTO[BUCKET_UPTO.length - 1]![0];

/** The aging bucket of an amount due on dueDate, seen on asOf (due on asOf or later: current). */
export function bucketOf(dueDate: string | null, asOf: string): Bucket {
  if (!dueDate) return 'current';
  const late = daysBetween(dueDate, asOf);
  for (const [upto, bucket] of BUCKET_UPTO) if (late <= upto) return bucket;
  return LATEST_BUCKET;
}

export const emptyBuckets = (): AgingBucketsDto => ({ current: 0, days_1_30: 0, days_31_60: 0, days_61_90: 0, days_over_90: 0 });

/** One open document as of the report date: its party, its open amount (may be 0) and due date. */
export interface OpenDocument {
  partyId: string;
  displayName: string | null;
  openCents: number;
  dueDate: string | null;
}

export interface AgingResult {
  totalOpenCents: number;
  partyCount: number;
  aging: AgingBucketsDto;
  rows: { party_id: string; display_name: string | null; open_cents: number; aging: AgingBucketsDto }[];
}

/** An open amount of one party in one aging bucket (the sum of its documents' open amounts there). */
export interface PartyBucketAmount {
  partyId: string;
  displayName: string | null;
  bucket: Bucket;
  openCents: number;
}

/** Totals, buckets and per-party rows; a party counts when its balance is above zero. */
export function aging(docs: readonly OpenDocument[], asOf: string): AgingResult {
  return agingOf(docs.map((d) => ({ partyId: d.partyId, displayName: d.displayName, bucket: bucketOf(d.dueDate, asOf), openCents: d.openCents })));
}

/** As aging, from amounts already put in buckets (the reports' query does that in SQL). */
export function agingOf(amounts: readonly PartyBucketAmount[]): AgingResult {
  const total = emptyBuckets();
  const byParty = new Map<string, AgingResult['rows'][number]>();
  for (const d of amounts) {
    if (d.openCents === 0) continue;
    total[d.bucket] += d.openCents;
    let row = byParty.get(d.partyId);
    if (!row) byParty.set(d.partyId, (row = { party_id: d.partyId, display_name: d.displayName, open_cents: 0, aging: emptyBuckets() }));
    row.open_cents += d.openCents;
    row.aging[d.bucket] += d.openCents;
  }
  const rows = [...byParty.values()].filter((r) => r.open_cents !== 0).sort((a, b) => b.open_cents - a.open_cents || a.party_id.localeCompare(b.party_id));
  const totalOpenCents = Object.values(total).reduce((a, b) => a + b, 0);
  return { totalOpenCents, partyCount: rows.filter((r) => r.open_cents > 0).length, aging: total, rows };
}

/** An aging report as the API shows it, its party's fields named for the side (customer: A/R, vendor: A/P). */
export type AgingReport<P extends 'customer' | 'vendor'> = { as_of: string; total_open_cents: number; aging: AgingBucketsDto } & Record<`${P}_count`, number> &
  Record<`${P}s`, (Omit<AgingResult['rows'][number], 'party_id'> & Record<`${P}_id`, string>)[]>;

/** Shapes an aging result for the API (fields in the documented order). */
export function agingReport<P extends 'customer' | 'vendor'>(party: P, asOf: string, r: AgingResult): AgingReport<P> {
  return {
    as_of: asOf,
    total_open_cents: r.totalOpenCents,
    [`${party}_count`]: r.partyCount,
    aging: r.aging,
    [`${party}s`]: r.rows.map(({ party_id, ...x }) => ({ [`${party}_id`]: party_id, ...x })),
  } as AgingReport<P>;
}

export function threshold1099(year: number): number {
  return year <= 2025 ? 60_000 : 200_000;
}

export interface VendorPaid {
  vendorId: string;
  displayName: string | null;
  eligible: boolean;
  w9OnFile: boolean;
  paidCents: number;
}

/** The 1099 summary from each vendor's never-reversed payments dated in the year. */
export function form1099(year: number, vendors: readonly VendorPaid[], includeIneligible: boolean): Form1099ReportDto {
  const threshold = threshold1099(year);
  const listed = vendors.filter((v) => v.paidCents > 0 && (v.eligible || includeIneligible));
  const rows = listed
    .map((v) => ({
      vendor_id: v.vendorId,
      display_name: v.displayName,
      is_1099_eligible: v.eligible,
      w9_on_file: v.w9OnFile,
      paid_cents: v.paidCents,
      reportable: v.eligible && v.paidCents >= threshold,
    }))
    .sort((a, b) => b.paid_cents - a.paid_cents || a.vendor_id.localeCompare(b.vendor_id));
  const reportable = rows.filter((r) => r.reportable);
  return {
    reporting_year: year,
    threshold_cents: threshold,
    total_reportable_paid_cents: reportable.reduce((a, r) => a + r.paid_cents, 0),
    eligible_vendor_count: reportable.length,
    missing_w9_count: reportable.filter((r) => !r.w9_on_file).length,
    vendors: rows,
  };
}

export interface AccountTotals {
  debitCents: number;
  creditCents: number;
}

/** An account of the chart with its totals and its balance on its normal side. */
export function accountDto(organizationId: string, environment: LedgerEnvironment, a: AccountDef, t: AccountTotals | undefined): AccountDto {
  const debit = t?.debitCents ?? 0;
  const credit = t?.creditCents ?? 0;
  const normal = normalBalance(a.type);
  return {
    id: accountId(organizationId, environment, a.code),
    code: a.code,
    name: a.name,
    type: a.type,
    subtype: a.subtype,
    normal_balance: normal,
    debit_total_cents: debit,
    credit_total_cents: credit,
    balance_cents: normal === 'debit' ? debit - credit : credit - debit,
  };
}

/** Every account of the chart (and any other code seen in the lines), by code. */
export function chartWithTotals(organizationId: string, environment: LedgerEnvironment, totals: ReadonlyMap<string, AccountTotals>): AccountDto[] {
  const known = new Set(DEFAULT_CHART.map((a) => a.code));
  const extra = [...totals.keys()].filter((c) => !known.has(c)).map((code): AccountDef => ({ code, name: `Account ${code}`, type: 'asset', subtype: null }));
  return [...DEFAULT_CHART, ...extra].sort((a, b) => a.code.localeCompare(b.code)).map((a) => accountDto(organizationId, environment, a, totals.get(a.code)));
}

/** The trial balance: each account's net balance in the debit or the credit column. */
export function trialBalance(accounts: readonly AccountDto[]) {
  const rows = accounts.map((a) => {
    const net = a.debit_total_cents - a.credit_total_cents;
    return { account_id: a.id, code: a.code, name: a.name, type: a.type, debit_cents: net > 0 ? net : 0, credit_cents: net < 0 ? -net : 0 };
  });
  const total_debit_cents = rows.reduce((s, r) => s + r.debit_cents, 0);
  const total_credit_cents = rows.reduce((s, r) => s + r.credit_cents, 0);
  return { accounts: rows, total_debit_cents, total_credit_cents, balanced: total_debit_cents === total_credit_cents };
}

/** A 4-digit reporting year the API accepts, or null. */
export function parseYear(s: string): number | null {
  if (!/^\d{4}$/.test(s)) return null;
  const y = Number(s);
  return y >= Number(limits.date_min.slice(0, 4)) && y <= Number(limits.date_max.slice(0, 4)) ? y : null;
}

const invalid = (field: string, message: string) => AppError.validation(message, [{ field, issue: 'invalid', message }]);

/** A period of entry dates: from must not be after to (a missing end bounds nothing). */
export function checkPeriod(from: string | undefined, to: string | undefined): void {
  if (from && to && from > to) throw invalid('from', 'from must not be after to.');
}

/** The year of a 1099 summary, or a validation error naming year. */
export function reportingYear(s: string): number {
  const year = parseYear(s);
  if (year === null) throw invalid('year', 'year must be a 4-digit year from 1900 to 9999.');
  return year;
}
