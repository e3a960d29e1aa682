import type { AccountDto } from '@acct/contracts';
import type { ListQuery, Orm, Scope } from '@acct/kit';
import { ACCOUNT } from '@acct/ledger';
import { type AgingResult, agingOf, chartWithTotals, form1099, trialBalance } from '../domain/reports';
import { type EntryFilter, type ProjectedEntry, accountTotals, journalEntries, netCredit, openAmounts, vendorPaymentsInYear } from '../queries/reports';
import type { Freshness } from './freshness';

/**
 * The ledger reads and reports. Each waits first for the projection to hold every write
 * acknowledged so far (read-your-writes: Freshness), then reads its totals.
 */
export interface Reads {
  orm: Orm;
  fresh: Freshness;
}

/** Every account of the chart with its totals of lines dated on or before asOf (all when null). */
export async function chart(r: Reads, s: Scope, asOf: string | null): Promise<AccountDto[]> {
  await r.fresh.awaitCaughtUp();
  return chartWithTotals(s.organizationId, s.environment, await accountTotals(r.orm, s, asOf));
}

/** A page of journal entries, newest first; one more than limit says has_more. */
export async function journalPage(r: Reads, s: Scope, f: EntryFilter, page: ListQuery): Promise<ProjectedEntry[]> {
  await r.fresh.awaitCaughtUp();
  return journalEntries(r.orm, s, f, page);
}

/** Revenue over [from, to]; receivables and payables as of to. */
export async function summary(r: Reads, s: Scope, from: string, to: string) {
  await r.fresh.awaitCaughtUp();
  const [revenue, payable, receivableCredit] = await Promise.all([
    netCredit(r.orm, s, ACCOUNT.revenue, from, to),
    netCredit(r.orm, s, ACCOUNT.payable, null, to),
    netCredit(r.orm, s, ACCOUNT.receivable, null, to),
  ]);
  return { from, to, revenue_cents: revenue, accounts_receivable_cents: -receivableCredit, accounts_payable_cents: payable };
}

/** A/R (invoices) or A/P (bills) as of asOf: totals, buckets and per-party rows. */
export async function agingAsOf(r: Reads, s: Scope, kind: 'invoice' | 'bill', asOf: string): Promise<AgingResult> {
  await r.fresh.awaitCaughtUp();
  return agingOf(await openAmounts(r.orm, s, kind, asOf));
}

/** The 1099 summary of a year. */
export async function form1099Of(r: Reads, s: Scope, year: number, includeIneligible: boolean) {
  await r.fresh.awaitCaughtUp();
  return form1099(year, await vendorPaymentsInYear(r.orm, s, year), includeIneligible);
}

/** The trial balance as of asOf. */
export async function trialBalanceAsOf(r: Reads, s: Scope, asOf: string) {
  return { as_of: asOf, ...trialBalance(await chart(r, s, asOf)) };
}
