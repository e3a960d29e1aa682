import type { PostingEvent, PostingSource } from '@acct/contracts';

/**
 * The lines of the journal entries of one source document (an invoice, a bill, a payment ...), in
 * entry and line order, as `select` names them (columns of journal_lines `l` and journal_entries `e`).
 */
export function entryLines(sql: (q: string, params?: unknown[]) => Promise<any[]>, sourceType: string, sourceId: string, select: string): Promise<any[]> {
  return sql(
    `SELECT ${select} FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id
      WHERE e.source_type = ? AND e.source_id = ? ORDER BY e.created_at, l.entry_id, l.line_no`,
    [sourceType, sourceId],
  );
}

/**
 * A processor payout as receivables sends it in a posting event (the catalogue's shape): the source
 * of the posting-library tests, whose Books are receivables' (Books.post refuses another service's).
 */
export function payoutSource(over: { gross_cents?: number; fee_cents?: number; net_cents?: number } = {}): PostingSource {
  return {
    type: 'processor_payout',
    processor_payout: {
      id: crypto.randomUUID(),
      external_payout_id: 'po_1',
      processor: 'stripe',
      payout_date: '2026-11-01',
      gross_cents: 100,
      fee_cents: 3,
      net_cents: 97,
      ...over,
      currency: 'USD',
      status: 'created',
      metadata: {},
      created_at: new Date().toISOString(),
    },
  };
}

/** One line of a posting event's entry on `accountId`, every party and document id null unless given. */
export function postingLine(
  accountId: string,
  account_code: string,
  side: 'debit' | 'credit',
  amount_cents: number,
  over: Partial<PostingEvent['entry']['lines'][number]> = {},
): PostingEvent['entry']['lines'][number] {
  return { account_id: accountId, account_code, side, amount_cents, customer_id: null, invoice_id: null, vendor_id: null, bill_id: null, ...over };
}

/** The cents a source document's journal entries book on one side (debit or credit). */
export async function bookedCents(db: { sql(q: string, params?: unknown[]): Promise<any[]> }, sourceId: string, side: 'debit' | 'credit'): Promise<number> {
  const rows = await db.sql(`SELECT sum(amount_cents)::int AS total FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id WHERE e.source_id = ? AND l.side = ?`, [
    sourceId,
    side,
  ]);
  return rows[0]?.total as number;
}
