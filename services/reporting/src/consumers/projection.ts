import type { ConsumedEvent, EntityManager } from '@acct/kit';
import type { PostingEvent, PostingSource, ReferenceEvent } from '@acct/contracts';
import { ACCOUNT } from '@acct/ledger';
import { daysBetween } from './domain/reports';

/** Stands for a missing document, customer or vendor id in the key columns of the daily totals. */
export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

type Exec = (sql: string, params: unknown[]) => Promise<unknown>;

/** `(?, ?), (?, ?)`: the placeholders of a multi-row VALUES list. */
const rowsOf = (rows: unknown[][]): string => rows.map((r) => `(${r.map(() => '?').join(', ')})`).join(', ');

/**
 * Applies one event to the projection, in the consumer's transaction (after its claim). Every
 * write commutes: entries are inserted once by id, documents once by id, parties last-writer-wins
 * by the event's time, so duplicates and any delivery order give the same tables.
 */
export async function applyEvent(em: EntityManager, event: ConsumedEvent): Promise<void> {
  const exec: Exec = (sql, params) => em.execute(sql, params, 'run');
  const type = event.payload.type;
  if (type === 'journal_entry.posted') return applyPosting(exec, event.payload as unknown as PostingEvent<PostingSource>, event.id);
  if (type === 'customer.created' || type === 'customer.updated' || type === 'vendor.created' || type === 'vendor.updated') {
    return applyParty(exec, event.payload as unknown as ReferenceEvent);
  }
  // Outbound events (webhooks) are not reporting's concern.
}

async function applyPosting(exec: Exec, e: PostingEvent<PostingSource>, eventId: string): Promise<void> {
  const { entry } = e;
  const scope = [e.organization_id, e.environment];
  const inserted = (await exec(
    `INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id, memo, reverses_entry_id, posted_at, event_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    [entry.id, ...scope, entry.entry_date, entry.source_type, entry.source_id, entry.memo, entry.reverses_entry_id, e.occurred_at, eventId],
  )) as { affectedRows?: number };
  if (inserted.affectedRows === 0) return; // the same entry under another event id
  const documents = documentsOf(e.source);
  // One multi-row statement per table; the daily totals summed per key first (one row per key).
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
  if (lines.length > 0) {
    await exec(
      `INSERT INTO journal_lines (entry_id, line_no, organization_id, environment, entry_date, account_id, account_code, side, amount_cents, customer_id, invoice_id, vendor_id, bill_id)
       VALUES ${rowsOf(lines)}`,
      lines.flat(),
    );
  }
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
  const dayRows = [...days].map(([code, [debit, credit]]) => [...scope, code, entry.entry_date, debit, credit]);
  if (dayRows.length > 0) {
    await exec(
      `INSERT INTO account_days (organization_id, environment, account_code, entry_date, debit_cents, credit_cents) VALUES ${rowsOf(dayRows)}
     ON CONFLICT (organization_id, environment, account_code, entry_date)
     DO UPDATE SET debit_cents = account_days.debit_cents + EXCLUDED.debit_cents, credit_cents = account_days.credit_cents + EXCLUDED.credit_cents`,
      dayRows.flat(),
    );
  }
  if (open.size > 0) {
    const openRows = [...open.values()].map(([code, party, due, cents]) => [...scope, code, entry.entry_date, party, due, cents]);
    await exec(
      `INSERT INTO open_days (organization_id, environment, account_code, entry_date, party_id, due_date, open_cents) VALUES ${rowsOf(openRows)}
       ON CONFLICT (organization_id, environment, account_code, entry_date, party_id, due_date)
       DO UPDATE SET open_cents = open_days.open_cents + EXCLUDED.open_cents`,
      openRows.flat(),
    );
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
    const periodRows = [...perParty.values()].flatMap(([code, party, cents]) => periods.map((period, grain) => [...scope, code, grain, period, party, cents]));
    await exec(
      `INSERT INTO party_periods (organization_id, environment, account_code, grain, period, party_id, open_cents) VALUES ${rowsOf(periodRows)}
       ON CONFLICT (organization_id, environment, account_code, grain, period, party_id) DO UPDATE SET open_cents = party_periods.open_cents + EXCLUDED.open_cents`,
      periodRows.flat(),
    );
    const leadRows = [...leads].map(([code, days]) => [...scope, code, days]);
    if (leadRows.length > 0) {
      await exec(
        `INSERT INTO open_leads (organization_id, environment, account_code, lead_days) VALUES ${rowsOf(leadRows)}
         ON CONFLICT (organization_id, environment, account_code) DO UPDATE SET lead_days = greatest(open_leads.lead_days, EXCLUDED.lead_days)`,
        leadRows.flat(),
      );
    }
  }
  // 1099: this entry's vendor payment counts unless something already reversed it; a first reversal takes its payment out.
  await exec(vendorPaymentDelta(1), [entry.id]);
  if (entry.reverses_entry_id) await exec(vendorPaymentDelta(-1), [entry.reverses_entry_id]);
}

/**
 * Adds (sign 1) or takes out (sign -1) the A/P debits of one entry in vendor_payment_years (its payment date's year) when it is
 * a vendor payment that reverses nothing: added when it arrives and no entry reverses it yet, taken
 * out when its first reversal arrives after it. Either order ends with the same totals.
 */
function vendorPaymentDelta(sign: 1 | -1): string {
  const reversals =
    sign === 1 ? `NOT EXISTS (SELECT 1 FROM journal_entries r WHERE r.reverses_entry_id = e.id)` : `(SELECT count(*) FROM journal_entries r WHERE r.reverses_entry_id = e.id) = 1`;
  return `INSERT INTO vendor_payment_years (organization_id, environment, year, vendor_id, paid_cents)
    SELECT e.organization_id, e.environment, extract(year FROM e.entry_date)::int, coalesce(l.vendor_id, '${NIL_UUID}'::uuid), ${sign === 1 ? '' : '-'}sum(l.amount_cents)
      FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id AND l.account_code = '${ACCOUNT.payable}' AND l.side = 'debit'
     WHERE e.id = ? AND e.source_type = 'vendor_payment' AND e.reverses_entry_id IS NULL AND ${reversals}
     GROUP BY 1, 2, 3, 4
    ON CONFLICT (organization_id, environment, year, vendor_id) DO UPDATE SET paid_cents = vendor_payment_years.paid_cents + EXCLUDED.paid_cents`;
}

/** The invoices and bills a posting's source shows, with their parties and due dates. */
export function documentsOf(source: PostingSource): { id: string; kind: 'invoice' | 'bill'; partyId: string; issueDate: string; dueDate: string }[] {
  switch (source.type) {
    case 'invoice':
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

async function applyParty(exec: Exec, e: ReferenceEvent): Promise<void> {
  const vendor = e.type.startsWith('vendor.');
  const d = e.data as { id: string; name?: string; display_name?: string; is_1099_eligible?: boolean; w9_on_file?: boolean; updated_at?: string };
  const version = d.updated_at ?? e.created_at;
  await exec(
    `INSERT INTO parties (id, organization_id, environment, kind, display_name, is_1099_eligible, w9_on_file, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET display_name = EXCLUDED.display_name, is_1099_eligible = EXCLUDED.is_1099_eligible, w9_on_file = EXCLUDED.w9_on_file, version = EXCLUDED.version
     WHERE parties.version < EXCLUDED.version`,
    [d.id, e.organization_id, e.environment, vendor ? 'vendor' : 'customer', (vendor ? d.display_name : d.name) ?? '', d.is_1099_eligible ?? false, d.w9_on_file ?? false, version],
  );
}
