import type { Orm, Scope } from '@acct/kit';
import { ACCOUNT } from '@acct/ledger';
import type { AccountTotals, OpenDocument, VendorPaid } from './domain/reports';

/** Every read of the projection. Scope first; dates inclusive. */
type Row = Record<string, unknown>;
const q = (orm: Orm, sql: string, params: unknown[]) => orm.em.fork().getConnection().execute<Row[]>(sql, params);

/** Debit and credit totals per account code, of lines dated on or before asOf (all when null), from the daily totals. */
export async function accountTotals(orm: Orm, s: Scope, asOf: string | null): Promise<Map<string, AccountTotals>> {
  const rows = await q(
    orm,
    `SELECT account_code, sum(debit_cents)::bigint AS debit, sum(credit_cents)::bigint AS credit
       FROM account_days WHERE organization_id = ? AND environment = ? AND (?::date IS NULL OR entry_date <= ?::date)
      GROUP BY account_code`,
    [s.organizationId, s.environment, asOf, asOf],
  );
  return new Map(rows.map((r) => [String(r.account_code), { debitCents: Number(r.debit), creditCents: Number(r.credit) }]));
}

/** Credits − debits of one account over [from, to]. */
export async function netCredit(orm: Orm, s: Scope, code: string, from: string | null, to: string): Promise<number> {
  const [r] = await q(
    orm,
    `SELECT coalesce(sum(credit_cents - debit_cents), 0)::bigint AS n
       FROM account_days WHERE organization_id = ? AND environment = ? AND account_code = ? AND (?::date IS NULL OR entry_date >= ?::date) AND entry_date <= ?::date`,
    [s.organizationId, s.environment, code, from, from, to],
  );
  return Number(r?.n ?? 0);
}

/** Open amount per invoice (A/R) or bill (A/P) as of asOf, with its party and due date. */
export async function openDocuments(orm: Orm, s: Scope, kind: 'invoice' | 'bill', asOf: string): Promise<OpenDocument[]> {
  const receivable = kind === 'invoice';
  const doc = receivable ? 'invoice_id' : 'bill_id';
  const party = receivable ? 'customer_id' : 'vendor_id';
  const sign = receivable ? `CASE WHEN l.side = 'debit' THEN l.amount_cents ELSE -l.amount_cents END` : `CASE WHEN l.side = 'credit' THEN l.amount_cents ELSE -l.amount_cents END`;
  const rows = await q(
    orm,
    `SELECT o.party_id, o.open, to_char(d.due_date, 'YYYY-MM-DD') AS due_date, p.display_name
       FROM (SELECT l.${doc} AS doc_id, max(l.${party}::text) AS party_id, sum(${sign})::bigint AS open
               FROM journal_lines l
              WHERE l.organization_id = ? AND l.environment = ? AND l.account_code = ? AND l.entry_date <= ?::date
              GROUP BY l.${doc}) o
       LEFT JOIN documents d ON d.id = o.doc_id
       LEFT JOIN parties p ON p.id = o.party_id::uuid
      WHERE o.open <> 0`,
    [s.organizationId, s.environment, receivable ? ACCOUNT.receivable : ACCOUNT.payable, asOf],
  );
  return rows.map((r) => ({
    partyId: String(r.party_id),
    displayName: (r.display_name as string | null) ?? null,
    openCents: Number(r.open),
    dueDate: (r.due_date as string | null) ?? null,
  }));
}

/** Per vendor: A/P debits of vendor payments dated in the year and never reversed. */
export async function vendorPaymentsInYear(orm: Orm, s: Scope, year: number): Promise<VendorPaid[]> {
  const rows = await q(
    orm,
    `SELECT l.vendor_id, sum(l.amount_cents)::bigint AS paid, p.display_name, coalesce(p.is_1099_eligible, false) AS eligible, coalesce(p.w9_on_file, false) AS w9
       FROM journal_entries e
       JOIN journal_lines l ON l.entry_id = e.id AND l.account_code = ? AND l.side = 'debit'
       LEFT JOIN parties p ON p.id = l.vendor_id
      WHERE e.organization_id = ? AND e.environment = ? AND e.source_type = 'vendor_payment' AND e.reverses_entry_id IS NULL
        AND e.entry_date >= make_date(?, 1, 1) AND e.entry_date < make_date(? + 1, 1, 1)
        AND NOT EXISTS (SELECT 1 FROM journal_entries r WHERE r.reverses_entry_id = e.id)
      GROUP BY l.vendor_id, p.display_name, p.is_1099_eligible, p.w9_on_file`,
    [ACCOUNT.payable, s.organizationId, s.environment, year, year],
  );
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

/** A page of journal entries (newest first, ties by id) with their lines; one row more than limit says has_more. */
export async function journalEntries(orm: Orm, s: Scope, f: EntryFilter, limit: number, offset: number): Promise<Row[]> {
  return q(
    orm,
    `SELECT e.id, to_char(e.entry_date, 'YYYY-MM-DD') AS entry_date, e.source_type, e.source_id, e.memo, e.reverses_entry_id, e.posted_at,
            (SELECT json_agg(json_build_object('account_id', l.account_id, 'account_code', l.account_code, 'side', l.side, 'amount_cents', l.amount_cents,
                    'customer_id', l.customer_id, 'invoice_id', l.invoice_id, 'vendor_id', l.vendor_id, 'bill_id', l.bill_id) ORDER BY l.line_no)
               FROM journal_lines l WHERE l.entry_id = e.id) AS lines
       FROM journal_entries e
      WHERE e.organization_id = ? AND e.environment = ?
        AND (?::text IS NULL OR e.source_type = ?) AND (?::uuid IS NULL OR e.source_id = ?::uuid)
        AND (?::date IS NULL OR e.entry_date >= ?::date) AND (?::date IS NULL OR e.entry_date <= ?::date)
      ORDER BY e.posted_at DESC, e.id DESC LIMIT ? OFFSET ?`,
    [
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
      limit + 1,
      offset,
    ],
  );
}
