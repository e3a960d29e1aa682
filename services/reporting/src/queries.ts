import type { Orm, Scope } from '@acct/kit';
import { ACCOUNT } from '@acct/ledger';
import { NIL_UUID } from './projection';
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

/**
 * Open amounts as of asOf by party and due date, with the party's name: each invoice (A/R) or bill
 * (A/P) is summed from its daily totals, its party is the greatest on its lines, documents with
 * nothing open are left out, and the rest are added up per party and due date (the aging arithmetic
 * only sums them per party and bucket, so the figures are the same as per document).
 */
export async function openDocuments(orm: Orm, s: Scope, kind: 'invoice' | 'bill', asOf: string): Promise<OpenDocument[]> {
  const receivable = kind === 'invoice';
  const sign = receivable ? `debit_cents - credit_cents` : `credit_cents - debit_cents`;
  const rows = await q(
    orm,
    `SELECT o.party_id, sum(o.open)::bigint AS open, to_char(d.due_date, 'YYYY-MM-DD') AS due_date, p.display_name
       FROM (SELECT dd.document_id AS doc_id, max(nullif(dd.party_id, '${NIL_UUID}')::text) AS party_id, sum(${sign})::bigint AS open
               FROM document_days dd
              WHERE dd.organization_id = ? AND dd.environment = ? AND dd.account_code = ? AND dd.entry_date <= ?::date
              GROUP BY dd.document_id) o
       LEFT JOIN documents d ON d.id = nullif(o.doc_id, '${NIL_UUID}')
       LEFT JOIN parties p ON p.id = o.party_id::uuid
      WHERE o.open <> 0
      GROUP BY o.party_id, d.due_date, p.id, p.display_name`,
    [s.organizationId, s.environment, receivable ? ACCOUNT.receivable : ACCOUNT.payable, asOf],
  );
  return rows.map((r) => ({
    partyId: String(r.party_id),
    displayName: (r.display_name as string | null) ?? null,
    openCents: Number(r.open),
    dueDate: (r.due_date as string | null) ?? null,
  }));
}

/** Per vendor: A/P debits of vendor payments dated in the year and never reversed (vendor_payment_days keeps only those). */
export async function vendorPaymentsInYear(orm: Orm, s: Scope, year: number): Promise<VendorPaid[]> {
  const rows = await q(
    orm,
    `SELECT v.vendor_id, v.paid, p.display_name, coalesce(p.is_1099_eligible, false) AS eligible, coalesce(p.w9_on_file, false) AS w9
       FROM (SELECT nullif(vendor_id, '${NIL_UUID}') AS vendor_id, sum(paid_cents)::bigint AS paid
               FROM vendor_payment_days
              WHERE organization_id = ? AND environment = ? AND entry_date >= make_date(?, 1, 1) AND entry_date < make_date(? + 1, 1, 1)
              GROUP BY vendor_id HAVING sum(paid_cents) <> 0) v
       LEFT JOIN parties p ON p.id = v.vendor_id`,
    [s.organizationId, s.environment, year, year],
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
