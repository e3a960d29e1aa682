import type { PostingEvent, PostingSource, ReferenceEvent } from '@acct/contracts';
import { ACCOUNT } from '@acct/ledger';
import { daysBetween } from './reports';

/** What one event writes to the projection, as rows of values (pure; the consumer runs the SQL). */

/** Stands for a missing document, customer or vendor id in the key columns of the daily totals. */
export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** A row of values, in the column order of its table's INSERT (queries.ts). */
export type Row = unknown[];

/** The rows a posting adds beside its entry: its lines and its share of each table of totals (summed per key first: one row per key). */
export interface PostingRows {
  lines: Row[];
  /** account_days: debit and credit per account code on the entry date. */
  days: Row[];
  /** open_days: A/R and A/P open amounts per account, party and due date on the entry date. */
  open: Row[];
  /** party_periods: the same per party on the entry's day, month and year (grain 0, 1, 2). */
  periods: Row[];
  /** open_leads: the furthest a due date is after the entry date, per account. */
  leads: Row[];
}

/** The invoices and bills a posting's source shows, with their parties and due dates. */
export function documentsOf(source: PostingSource): { id: string; kind: 'invoice' | 'bill'; partyId: string; issueDate: string; dueDate: string }[] {
  switch (source.type) {
    case 'invoice':
    case 'invoice_void':
    case 'payment':
    case 'payment_refund':
      return [{ id: source.invoice.id, kind: 'invoice', partyId: source.invoice.customer_id, issueDate: source.invoice.issue_date, dueDate: source.invoice.due_date }];
    case 'bill':
    case 'bill_reversal':
      return [{ id: source.bill.id, kind: 'bill', partyId: source.bill.vendor_id, issueDate: source.bill.issue_date, dueDate: source.bill.due_date }];
    case 'vendor_payment':
    case 'vendor_payment_reversal':
      return source.bills.map((b) => ({ id: b.id, kind: 'bill' as const, partyId: b.vendor_id, issueDate: b.issue_date, dueDate: b.due_date }));
    default:
      return [];
  }
}

/** The journal_entries row of a posting (event id: the consumer's claim, kept on the entry). */
export function entryRow(e: PostingEvent<PostingSource>, eventId: string): Row {
  const { entry } = e;
  return [entry.id, e.organization_id, e.environment, entry.entry_date, entry.source_type, entry.source_id, entry.memo, entry.reverses_entry_id, e.occurred_at, eventId];
}

/** The other rows a journal_entry.posted event adds, once its entry is new. */
export function postingRows(e: PostingEvent<PostingSource>): PostingRows {
  const { entry } = e;
  const scope = [e.organization_id, e.environment];
  const documents = documentsOf(e.source);
  const lines = entry.lines.map((l, n) => [
    entry.id,
    n,
    ...scope,
    entry.entry_date,
    l.account_id,
    l.account_code,
    l.side,
    l.amount_cents,
    l.customer_id,
    l.invoice_id,
    l.vendor_id,
    l.bill_id,
  ]);
  const days = new Map<string, [number, number]>();
  const open = new Map<string, [string, string, string, number]>();
  for (const l of entry.lines) {
    const debit = l.side === 'debit' ? l.amount_cents : 0;
    const d = days.get(l.account_code) ?? [0, 0];
    days.set(l.account_code, [d[0] + debit, d[1] + l.amount_cents - debit]);
    if (l.account_code === ACCOUNT.receivable || l.account_code === ACCOUNT.payable) {
      const receivable = l.account_code === ACCOUNT.receivable;
      const doc = documents.find((x) => x.id === (receivable ? l.invoice_id : l.bill_id));
      const party = (receivable ? l.customer_id : l.vendor_id) ?? doc?.partyId ?? NIL_UUID;
      const due = doc?.dueDate ?? 'infinity';
      const key = `${l.account_code} ${party} ${due}`;
      open.set(key, [l.account_code, party, due, (open.get(key)?.[3] ?? 0) + ((l.side === 'debit') === receivable ? l.amount_cents : -l.amount_cents)]);
    }
  }
  // The party's balance per day, month and year of the entry; the furthest due date after an entry date.
  const d = entry.entry_date;
  const periods = [d, `${d.slice(0, 7)}-01`, `${d.slice(0, 4)}-01-01`];
  const perParty = new Map<string, [string, string, number]>();
  const leads = new Map<string, number>();
  for (const [code, party, due, cents] of open.values()) {
    const key = `${code} ${party}`;
    perParty.set(key, [code, party, (perParty.get(key)?.[2] ?? 0) + cents]);
    if (due !== 'infinity') leads.set(code, Math.max(leads.get(code) ?? 0, daysBetween(d, due)));
  }
  // Each table's rows in the order of its conflict key, so that two transactions upserting the same keys lock them in the same order.
  return {
    lines,
    days: byKey(
      [...days].map(([code, [debit, credit]]) => [...scope, code, entry.entry_date, debit, credit]),
      4,
    ),
    open: byKey(
      [...open.values()].map(([code, party, due, cents]) => [...scope, code, entry.entry_date, party, due, cents]),
      6,
    ),
    periods: byKey(
      [...perParty.values()].flatMap(([code, party, cents]) => periods.map((period, grain) => [...scope, code, grain, period, party, cents])),
      6,
    ),
    leads: byKey(
      [...leads].map(([code, n]) => [...scope, code, n]),
      3,
    ),
  };
}

/**
 * The rows of several new postings as one write per table: their lines, and each table of totals
 * summed per key across them (max for open_leads' lead), one row per key, sorted by key. Writing
 * these adds exactly what writing each posting's rows in turn adds (sums commute), and creates the
 * same keys (a key that sums to zero is kept, as one posting's own rows keep it).
 */
export function sumPostingRows(postings: readonly PostingRows[]): PostingRows {
  const sum = (rows: (p: PostingRows) => Row[], keyColumns: number, merge: (into: Row, row: Row) => void): Row[] => {
    const byKeyText = new Map<string, Row>();
    for (const p of postings) {
      for (const row of rows(p)) {
        // Keys as the event wrote them: one uuid in two cases would be two keys here and one in the
        // table, and the upsert would fail the batch (then applied event by event, still right).
        const key = JSON.stringify(row.slice(0, keyColumns));
        const into = byKeyText.get(key);
        if (into) merge(into, row);
        else byKeyText.set(key, [...row]);
      }
    }
    return byKey([...byKeyText.values()], keyColumns);
  };
  const add = (columns: number[]) => (into: Row, row: Row) => {
    for (const c of columns) into[c] = (into[c] as number) + (row[c] as number);
  };
  return {
    lines: postings.flatMap((p) => p.lines),
    days: sum((p) => p.days, 4, add([4, 5])),
    open: sum((p) => p.open, 6, add([6])),
    periods: sum((p) => p.periods, 6, add([6])),
    leads: sum(
      (p) => p.leads,
      3,
      (into, row) => (into[3] = Math.max(into[3] as number, row[3] as number)),
    ),
  };
}

/** Rows sorted by their first `keyColumns` values (a table's conflict key: strings by code point, numbers by value). */
export function byKey(rows: Row[], keyColumns: number): Row[] {
  const cmp = (a: unknown, b: unknown): number => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0);
  return rows.sort((x, y) => {
    for (let i = 0; i < keyColumns; i++) {
      const c = cmp(x[i], y[i]);
      if (c !== 0) return c;
    }
    return 0;
  });
}

/** The parties row of a customer.* or vendor.* event; its version (updated_at) decides which write wins. */
export function partyRow(e: ReferenceEvent): Row {
  const vendor = e.type.startsWith('vendor.');
  const d = e.data as { id: string; name?: string; display_name?: string; is_1099_eligible?: boolean; w9_on_file?: boolean; updated_at?: string };
  const version = d.updated_at ?? e.created_at;
  return [
    d.id,
    e.organization_id,
    e.environment,
    vendor ? 'vendor' : 'customer',
    (vendor ? d.display_name : d.name) ?? '',
    d.is_1099_eligible ?? false,
    d.w9_on_file ?? false,
    version,
  ];
}
