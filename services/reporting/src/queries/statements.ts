import type { Orm, Scope } from '@acct/kit';
import type { BucketTotals } from '../domain/statements';
import type { ReportQuery } from './reports';

/** The statements' reads (API-DECISIONS §14) and the fiscal year setting. Scope first; dates inclusive. */
type Row = Record<string, unknown>;
const q = (orm: Orm, { sql, params }: ReportQuery) => orm.em.fork().getConnection().execute<Row[]>(sql, params);
/** A Postgres array literal (a JS array would be spread into a list of placeholders); the values are dates and account codes. */
const pgArray = (xs: readonly string[]) => `{${xs.join(',')}}`;

/** Where a page of the general ledger starts: after this line (entry date, entry id, line number), with the running balance after it. */
export interface LedgerCursor {
  entryDate: string;
  entryId: string;
  lineNo: number;
  balanceCents: number;
}

export const statementQueries = {
  /**
   * Debit and credit totals per account code and bucket of days, from the daily totals: bucket b
   * holds the days after ends[b − 1] up to ends[b] (width_bucket over the days after each end), only
   * days from `from` (all when null) up to the last end.
   */
  bucketTotals: (s: Scope, ends: readonly string[], from: string | null): ReportQuery => ({
    sql: `SELECT account_code, width_bucket(entry_date, array(SELECT x + 1 FROM unnest(?::date[]) x ORDER BY 1)) AS bucket,
            sum(debit_cents)::bigint AS debit, sum(credit_cents)::bigint AS credit
       FROM account_days
      WHERE organization_id = ? AND environment = ? AND entry_date <= ?::date AND (?::date IS NULL OR entry_date >= ?::date)
      GROUP BY 1, 2`,
    params: [pgArray(ends), s.organizationId, s.environment, ends[ends.length - 1], from, from],
  }),
  /**
   * Cash basis: the P&L accounts' debits − credits per account and bucket of days (as bucketTotals,
   * the amounts as debits) over [from, last end]: the P&L lines of every entry that touches no A/R or
   * A/P line (a processor fee on its payout date) as dated, and for each A/R or A/P line of a document
   * (invoice_id, bill_id) in an entry that is not the document's own (a payment, a refund, a reversal
   * of either), the document's P&L amounts (its own entries: the invoice or bill and its void) in the
   * proportion the line settles of its A/R or A/P amount, on the line's date. Per account, each date
   * takes the rounded share of everything settled up to it less that of everything settled before
   * (settled_upto), so a document settled in full recognises exactly its amounts, cent for cent.
   */
  cashBucketTotals: (s: Scope, ends: readonly string[], from: string, plCodes: readonly string[], control: readonly string[]): ReportQuery => {
    const scope = [s.organizationId, s.environment];
    const to = ends[ends.length - 1];
    const signed = (l: string) => `CASE WHEN ${l}.side = 'debit' THEN ${l}.amount_cents ELSE -${l}.amount_cents END`;
    return {
      sql: `WITH direct AS (
         SELECT l.account_code, l.entry_date, ${signed('l')} AS net
           FROM journal_lines l
          WHERE l.organization_id = ? AND l.environment = ? AND l.account_code = ANY (?::text[]) AND l.entry_date >= ?::date AND l.entry_date <= ?::date
            AND NOT EXISTS (SELECT 1 FROM journal_lines o WHERE o.entry_id = l.entry_id AND o.account_code = ANY (?::text[]))
       ), settled AS (
         SELECT coalesce(l.invoice_id, l.bill_id) AS doc, l.account_code AS ctl, l.entry_date, sum(${signed('l')}) AS net
           FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id
          WHERE l.organization_id = ? AND l.environment = ? AND l.account_code = ANY (?::text[]) AND l.entry_date <= ?::date
            AND coalesce(l.invoice_id, l.bill_id) IS NOT NULL AND e.source_type NOT IN ('invoice', 'bill')
          GROUP BY 1, 2, 3
       ), settled_upto AS (
         SELECT *, sum(net) OVER (PARTITION BY doc, ctl ORDER BY entry_date) AS upto FROM settled
       ), doc_entries AS (
         SELECT DISTINCT s.doc, s.ctl, dl.entry_id
           FROM (SELECT DISTINCT doc, ctl FROM settled) s
           JOIN journal_lines dl ON dl.organization_id = ? AND dl.environment = ? AND dl.account_code = s.ctl AND coalesce(dl.invoice_id, dl.bill_id) = s.doc
           JOIN journal_entries e ON e.id = dl.entry_id AND e.source_type IN ('invoice', 'bill')
       ), doc_amounts AS (
         SELECT de.doc, de.ctl, l.account_code, sum(${signed('l')}) AS net
           FROM doc_entries de JOIN journal_lines l ON l.entry_id = de.entry_id
          GROUP BY 1, 2, 3
       ), recognized AS (
         SELECT a.account_code, s.entry_date,
                (round(-s.upto::numeric * a.net / t.net) - round(-(s.upto - s.net)::numeric * a.net / t.net))::bigint AS net
           FROM settled_upto s
           JOIN doc_amounts t ON t.doc = s.doc AND t.ctl = s.ctl AND t.account_code = s.ctl AND t.net <> 0
           JOIN doc_amounts a ON a.doc = s.doc AND a.ctl = s.ctl AND a.account_code = ANY (?::text[])
       )
       SELECT account_code, width_bucket(entry_date, array(SELECT x + 1 FROM unnest(?::date[]) x ORDER BY 1)) AS bucket, sum(net)::bigint AS debit, 0 AS credit
         FROM (SELECT * FROM direct UNION ALL SELECT * FROM recognized WHERE entry_date >= ?::date) x
        GROUP BY 1, 2`,
      params: [...scope, pgArray(plCodes), from, to, pgArray(control), ...scope, pgArray(control), to, ...scope, pgArray(plCodes), pgArray(ends), from],
    };
  },
  /** Debits − credits of one account over the days before `before` (null: none) and over the days up to `upTo`. */
  accountNet: (s: Scope, code: string, before: string, upTo: string): ReportQuery => ({
    sql: `SELECT coalesce(sum(debit_cents - credit_cents) FILTER (WHERE entry_date < ?::date), 0)::bigint AS opening,
            coalesce(sum(debit_cents - credit_cents), 0)::bigint AS closing
       FROM account_days WHERE organization_id = ? AND environment = ? AND account_code = ? AND entry_date <= ?::date`,
    params: [before, s.organizationId, s.environment, code, upTo],
  }),
  /** One page (limit rows) of an account's lines in [from, to], after the cursor's line: one range of journal_lines_ledger. */
  ledgerLines: (s: Scope, code: string, from: string, to: string, after: LedgerCursor | null, limit: number): ReportQuery => ({
    sql: `SELECT to_char(l.entry_date, 'YYYY-MM-DD') AS entry_date, l.entry_id, l.line_no, l.side, l.amount_cents, e.source_type, e.source_id, e.memo
       FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id
      WHERE l.organization_id = ? AND l.environment = ? AND l.account_code = ? AND l.entry_date >= ?::date AND l.entry_date <= ?::date
        AND (?::date IS NULL OR (l.entry_date, l.entry_id, l.line_no) > (?::date, ?::uuid, ?::int))
      ORDER BY l.entry_date, l.entry_id, l.line_no LIMIT ?`,
    params: [s.organizationId, s.environment, code, from, to, after?.entryDate ?? null, after?.entryDate ?? null, after?.entryId ?? null, after?.lineNo ?? null, limit],
  }),
  accountCodes: (s: Scope): ReportQuery => ({
    sql: `SELECT DISTINCT account_code FROM account_days WHERE organization_id = ? AND environment = ?`,
    params: [s.organizationId, s.environment],
  }),
  fiscalYearGet: (s: Scope): ReportQuery => ({
    sql: `SELECT start_month FROM fiscal_year_settings WHERE organization_id = ? AND environment = ?`,
    params: [s.organizationId, s.environment],
  }),
  fiscalYearPut: (s: Scope, startMonth: number): ReportQuery => ({
    sql: `INSERT INTO fiscal_year_settings (organization_id, environment, start_month) VALUES (?, ?, ?)
      ON CONFLICT (organization_id, environment) DO UPDATE SET start_month = EXCLUDED.start_month, updated_at = now()
      RETURNING start_month`,
    params: [s.organizationId, s.environment, startMonth],
  }),
};

export async function bucketTotals(orm: Orm, s: Scope, ends: readonly string[], from: string | null): Promise<BucketTotals[]> {
  const rows = await q(orm, statementQueries.bucketTotals(s, ends, from));
  return rows.map((r) => ({ code: String(r.account_code), bucket: Number(r.bucket), debitCents: Number(r.debit), creditCents: Number(r.credit) }));
}

export async function cashBucketTotals(orm: Orm, s: Scope, ends: readonly string[], from: string, plCodes: readonly string[], control: readonly string[]): Promise<BucketTotals[]> {
  const rows = await q(orm, statementQueries.cashBucketTotals(s, ends, from, plCodes, control));
  return rows.map((r) => ({ code: String(r.account_code), bucket: Number(r.bucket), debitCents: Number(r.debit), creditCents: Number(r.credit) }));
}

export async function accountNet(orm: Orm, s: Scope, code: string, before: string, upTo: string): Promise<{ opening: number; closing: number }> {
  const [r] = await q(orm, statementQueries.accountNet(s, code, before, upTo));
  return { opening: Number(r?.opening ?? 0), closing: Number(r?.closing ?? 0) };
}

export interface LedgerLine {
  entryDate: string;
  entryId: string;
  lineNo: number;
  side: 'debit' | 'credit';
  amountCents: number;
  sourceType: string;
  sourceId: string;
  memo: string | null;
}

export async function ledgerLines(orm: Orm, s: Scope, code: string, from: string, to: string, after: LedgerCursor | null, limit: number): Promise<LedgerLine[]> {
  const rows = await q(orm, statementQueries.ledgerLines(s, code, from, to, after, limit));
  return rows.map((r) => ({
    entryDate: String(r.entry_date),
    entryId: String(r.entry_id),
    lineNo: Number(r.line_no),
    side: r.side as LedgerLine['side'],
    amountCents: Number(r.amount_cents),
    sourceType: String(r.source_type),
    sourceId: String(r.source_id),
    memo: (r.memo as string | null) ?? null,
  }));
}

/** Every account code with a line in this scope. */
export async function accountCodes(orm: Orm, s: Scope): Promise<string[]> {
  return (await q(orm, statementQueries.accountCodes(s))).map((r) => String(r.account_code));
}

/** The fiscal year's start month, 1 when never set. */
export async function fiscalYearStartMonth(orm: Orm, s: Scope): Promise<number> {
  const [r] = await q(orm, statementQueries.fiscalYearGet(s));
  return r ? Number(r.start_month) : 1;
}

export async function putFiscalYearStartMonth(orm: Orm, s: Scope, startMonth: number): Promise<number> {
  const [r] = await q(orm, statementQueries.fiscalYearPut(s, startMonth));
  return Number(r?.start_month ?? startMonth);
}
