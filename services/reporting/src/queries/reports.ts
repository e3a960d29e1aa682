import type { PostingEvent } from '@acct/contracts';
import { type ListQuery, type Orm, type Scope, keysetSql, unknownCursor } from '@acct/kit';
import { ACCOUNT } from '@acct/ledger';
import { NIL_UUID } from '../domain/projection';
import { BUCKET_UPTO, LATEST_BUCKET, RECENT_DAYS, type AccountTotals, type Bucket, type PartyBucketAmount, type VendorPaid } from '../domain/reports';

/** Every read of the projection (the reports and the journal). Scope first; dates inclusive. */
type Row = Record<string, unknown>;
/** A report query: SQL with `?` placeholders and its values (also EXPLAINed by a test and by the bench). */
export interface ReportQuery {
  sql: string;
  params: unknown[];
}
/** Postgres' first date (Julian day 0): a date bound computed below it is an error, not an empty range. */
export const PG_DATE_MIN = '4714-11-24 BC';
/** The SQL with `$1, $2, …` for node-postgres (EXPLAIN in tests and the bench). */
const q = (orm: Orm, { sql, params }: ReportQuery) => orm.em.fork().getConnection().execute<Row[]>(sql, params);

/** The SQL of each report query, by name, as the reads below run it. */
export const reportQueries = {
  accountTotals: (s: Scope, asOf: string | null): ReportQuery => ({
    sql: `SELECT account_code, sum(debit_cents)::bigint AS debit, sum(credit_cents)::bigint AS credit
       FROM account_days WHERE organization_id = ? AND environment = ? AND (?::date IS NULL OR entry_date <= ?::date)
      GROUP BY account_code`,
    params: [s.organizationId, s.environment, asOf, asOf],
  }),
  netCredit: (s: Scope, code: string, from: string | null, to: string): ReportQuery => ({
    sql: `SELECT coalesce(sum(credit_cents - debit_cents), 0)::bigint AS n
       FROM account_days WHERE organization_id = ? AND environment = ? AND account_code = ? AND (?::date IS NULL OR entry_date >= ?::date) AND entry_date <= ?::date`,
    params: [s.organizationId, s.environment, code, from, from, to],
  }),
  /**
   * One statement (one snapshot), bounded for any as_of: the buckets current … 61-90 from open_days
   * dated in [as_of − 90 − lead, as_of] and due on or after as_of − 90 (lead: open_leads, so no line
   * due then is dated earlier), plus lines without a due date ('infinity', current) up to as_of; over
   * 90 is each party's balance (party_periods: years, then months, then days up to as_of) less those.
   * The lead is clamped so the lower bound never leaves Postgres' dates: a bill due 9999-12-31 gives a
   * lead of ~2.9 million days, and as_of − 90 − lead would be before 4714 BC ("date out of range").
   * Clamped, the bound is PG_DATE_MIN, before any entry date, so the range holds the same lines.
   */
  openAmounts: (s: Scope, kind: 'invoice' | 'bill', asOf: string): ReportQuery => {
    const scope = [s.organizationId, s.environment, kind === 'invoice' ? ACCOUNT.receivable : ACCOUNT.payable];
    const band = RECENT_DAYS;
    return {
      sql: `WITH recent AS MATERIALIZED (
         SELECT party_id, ${bucketSql('due_date', '?::date')} AS bucket, sum(open_cents)::bigint AS open
           FROM open_days
          WHERE organization_id = ? AND environment = ? AND account_code = ? AND entry_date <= ?::date AND due_date >= ?::date - ${band}
            AND entry_date >= ?::date - ${band} - least(coalesce((SELECT lead_days FROM open_leads WHERE organization_id = ? AND environment = ? AND account_code = ?), 0),
                                                        ?::date - ${band} - DATE '${PG_DATE_MIN}')
            AND due_date <> 'infinity'
          GROUP BY 1, 2
         UNION ALL
         SELECT party_id, 'current', sum(open_cents)::bigint
           FROM open_days
          WHERE organization_id = ? AND environment = ? AND account_code = ? AND entry_date <= ?::date AND due_date = 'infinity'
          GROUP BY 1),
       balance AS (
         SELECT party_id, sum(open_cents)::bigint AS open
           FROM (SELECT party_id, open_cents FROM party_periods
                  WHERE organization_id = ? AND environment = ? AND account_code = ? AND grain = 2 AND period < date_trunc('year', ?::date)::date
                 UNION ALL
                 SELECT party_id, open_cents FROM party_periods
                  WHERE organization_id = ? AND environment = ? AND account_code = ? AND grain = 1
                    AND period >= date_trunc('year', ?::date)::date AND period < date_trunc('month', ?::date)::date
                 UNION ALL
                 SELECT party_id, open_cents FROM party_periods
                  WHERE organization_id = ? AND environment = ? AND account_code = ? AND grain = 0 AND period >= date_trunc('month', ?::date)::date AND period <= ?::date) x
          GROUP BY 1)
       SELECT nullif(o.party_id, '${NIL_UUID}') AS party_id, o.bucket, o.open, p.display_name
         FROM (SELECT party_id, bucket, open FROM recent
               UNION ALL
               SELECT b.party_id, '${LATEST_BUCKET}', b.open - coalesce(r.open, 0)
                 FROM balance b LEFT JOIN (SELECT party_id, sum(open) AS open FROM recent GROUP BY 1) r ON r.party_id = b.party_id) o
         LEFT JOIN parties p ON p.id = nullif(o.party_id, '${NIL_UUID}')`,
      params: [...BUCKET_UPTO.map(() => asOf), ...scope, asOf, asOf, asOf, ...scope, asOf, ...scope, asOf, ...scope, asOf, ...scope, asOf, asOf, ...scope, asOf, asOf],
    };
  },
  vendorPaymentsInYear: (s: Scope, year: number): ReportQuery => ({
    sql: `SELECT v.vendor_id, v.paid, p.display_name, coalesce(p.is_1099_eligible, false) AS eligible, coalesce(p.w9_on_file, false) AS w9
       FROM (SELECT nullif(vendor_id, '${NIL_UUID}') AS vendor_id, paid_cents AS paid
               FROM vendor_payment_years
              WHERE organization_id = ? AND environment = ? AND year = ? AND paid_cents <> 0) v
       LEFT JOIN parties p ON p.id = v.vendor_id`,
    params: [s.organizationId, s.environment, year],
  }),
  journalEntries: (s: Scope, f: EntryFilter, page: ListQuery): ReportQuery => {
    // created[…] and the cursors walk posted_at (when the entry was recorded), the list's order.
    const k = keysetSql(page, { time: 'e.posted_at', id: 'e.id', cursorTime: `SELECT c.posted_at FROM journal_entries c WHERE c.id = ?` });
    return {
      sql: `SELECT e.id, to_char(e.entry_date, 'YYYY-MM-DD') AS entry_date, e.source_type, e.source_id, e.memo, e.reverses_entry_id, e.posted_at,
            (SELECT json_agg(json_build_object('account_id', l.account_id, 'account_code', l.account_code, 'side', l.side, 'amount_cents', l.amount_cents,
                    'customer_id', l.customer_id, 'invoice_id', l.invoice_id, 'vendor_id', l.vendor_id, 'bill_id', l.bill_id) ORDER BY l.line_no)
               FROM journal_lines l WHERE l.entry_id = e.id) AS lines
       FROM journal_entries e
      WHERE e.organization_id = ? AND e.environment = ?
        AND (?::text IS NULL OR e.source_type = ?) AND (?::uuid IS NULL OR e.source_id = ?::uuid)
        AND (?::date IS NULL OR e.entry_date >= ?::date) AND (?::date IS NULL OR e.entry_date <= ?::date)
        ${k.where.map((w) => `AND ${w}`).join(' ')}
      ORDER BY ${k.order} LIMIT ? OFFSET ?`,
      params: [
        s.organizationId,
        s.environment,
        f.source_type ?? null,
        f.source_type ?? null,
        f.source_id ?? null,
        f.source_id ?? null,
        f.from ?? null,
        f.from ?? null,
        f.to ?? null,
        f.to ?? null,
        ...k.args,
        k.limit,
        k.offset,
      ],
    };
  },
  journalEntryInScope: (s: Scope, id: string): ReportQuery => ({
    sql: `SELECT 1 AS found FROM journal_entries WHERE id = ? AND organization_id = ? AND environment = ?`,
    params: [id, s.organizationId, s.environment],
  }),
};

/** Debit and credit totals per account code, of lines dated on or before asOf (all when null), from the daily totals. */
export async function accountTotals(orm: Orm, s: Scope, asOf: string | null): Promise<Map<string, AccountTotals>> {
  const rows = await q(orm, reportQueries.accountTotals(s, asOf));
  return new Map(rows.map((r) => [String(r.account_code), { debitCents: Number(r.debit), creditCents: Number(r.credit) }]));
}

/** Credits − debits of one account over [from, to]. */
export async function netCredit(orm: Orm, s: Scope, code: string, from: string | null, to: string): Promise<number> {
  const [r] = await q(orm, reportQueries.netCredit(s, code, from, to));
  return Number(r?.n ?? 0);
}

/** SQL for the aging bucket of a due date seen on the date parameter `asOf` (bucketOf's definition, from the same table). */
export function bucketSql(due: string, asOf: string): string {
  const arms = BUCKET_UPTO.map(([upto, bucket]) => `WHEN ${due} >= ${asOf} - ${upto} THEN '${bucket}'`).join(' ');
  return `CASE ${arms} ELSE '${LATEST_BUCKET}' END`;
}

/**
 * Open amounts as of asOf per party and aging bucket, with the party's name: one range of open_days
 * (every A/R or A/P line up to asOf, already summed per party, due date and day) grouped by party
 * and bucket. Documents add up per party and bucket, so the figures are those of per-document sums.
 * The query reads open_days only near as_of and takes the rest of each party's balance as over 90
 * (reportQueries.openAmounts), so it reads a bounded number of rows whatever the ledger's length.
 */
export async function openAmounts(orm: Orm, s: Scope, kind: 'invoice' | 'bill', asOf: string): Promise<PartyBucketAmount[]> {
  const rows = await q(orm, reportQueries.openAmounts(s, kind, asOf));
  return rows.map((r) => ({
    partyId: String(r.party_id),
    displayName: (r.display_name as string | null) ?? null,
    bucket: r.bucket as Bucket,
    openCents: Number(r.open),
  }));
}

/** Per vendor: A/P debits of vendor payments dated in the year and never reversed (vendor_payment_years keeps only those, per year). */
export async function vendorPaymentsInYear(orm: Orm, s: Scope, year: number): Promise<VendorPaid[]> {
  const rows = await q(orm, reportQueries.vendorPaymentsInYear(s, year));
  return rows.map((r) => ({
    vendorId: String(r.vendor_id),
    displayName: (r.display_name as string | null) ?? null,
    eligible: Boolean(r.eligible),
    w9OnFile: Boolean(r.w9),
    paidCents: Number(r.paid),
  }));
}

export interface EntryFilter {
  source_type?: string;
  source_id?: string;
  from?: string;
  to?: string;
}

/** A journal entry as the API shows it: the posted entry with its lines and when it was projected. */
export type ProjectedEntry = PostingEvent['entry'] & { posted_at: string };

/** A page of journal entries (newest first, ties by id) with their lines; one row more than limit says has_more. */
export async function journalEntries(orm: Orm, s: Scope, f: EntryFilter, page: ListQuery): Promise<ProjectedEntry[]> {
  if (page.cursor && !(await q(orm, reportQueries.journalEntryInScope(s, page.cursor.id))).length) throw unknownCursor(page.cursor);
  const rows = await q(orm, reportQueries.journalEntries(s, f, page));
  return rows.map((r) => ({
    id: String(r.id),
    entry_date: String(r.entry_date),
    source_type: String(r.source_type),
    source_id: String(r.source_id),
    memo: (r.memo as string | null) ?? null,
    reverses_entry_id: (r.reverses_entry_id as string | null) ?? null,
    posted_at: new Date(r.posted_at as string).toISOString(),
    lines: ((r.lines ?? []) as ProjectedEntry['lines']).map((l) => ({ ...l, amount_cents: Number(l.amount_cents) })),
  }));
}
