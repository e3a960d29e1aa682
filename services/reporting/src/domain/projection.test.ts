import type { PostingEvent, PostingSource, ReferenceEvent } from '@acct/contracts';
import { NIL_UUID, byKey, documentsOf, entryRow, partyRow, postingRows, sumPostingRows } from './projection';
import { postingLine } from '@acct/testing';

const ORG = '6f1c0f2e-8a55-4c1e-9a53-2a3f1f0c9b11';
const VENDOR = '11111111-1111-4111-8111-111111111111';
const BILL = '22222222-2222-4222-8222-222222222222';
const ENTRY = '33333333-3333-4333-8333-333333333333';
const ACC = '44444444-4444-4444-8444-444444444444';

const line = (account_code: string, side: 'debit' | 'credit', amount_cents: number, over: Partial<PostingEvent['entry']['lines'][number]> = {}) =>
  postingLine(ACC, account_code, side, amount_cents, over);

/** A bill of 500.00 dated 2026-03-15, due 2026-04-14, posted as two lines. */
const billPosting = (): PostingEvent<PostingSource> =>
  ({
    id: 'ev',
    type: 'journal_entry.posted',
    organization_id: ORG,
    environment: 'test',
    occurred_at: '2026-03-15T10:00:00.000Z',
    entry: {
      id: ENTRY,
      entry_date: '2026-03-15',
      source_type: 'bill',
      source_id: BILL,
      memo: null,
      reverses_entry_id: null,
      lines: [line('6000', 'debit', 50_000), line('2000', 'credit', 50_000, { bill_id: BILL })],
    },
    source: { type: 'bill', bill: { id: BILL, vendor_id: VENDOR, issue_date: '2026-03-15', due_date: '2026-04-14' } },
  }) as unknown as PostingEvent<PostingSource>;

describe('what a posting writes to the projection', () => {
  it('finds the documents of a source with their parties and due dates', () => {
    expect(documentsOf(billPosting().source)).toEqual([{ id: BILL, kind: 'bill', partyId: VENDOR, issueDate: '2026-03-15', dueDate: '2026-04-14' }]);
    expect(documentsOf({ type: 'processor_payout' } as PostingSource)).toEqual([]);
    // A void's reversal closes the invoice in the bucket of its own due date (API-DECISIONS §11).
    const invoice = { id: BILL, customer_id: VENDOR, issue_date: '2026-03-15', due_date: '2026-04-14' };
    expect(documentsOf({ type: 'invoice_void', invoice } as unknown as PostingSource)).toEqual([
      { id: BILL, kind: 'invoice', partyId: VENDOR, issueDate: '2026-03-15', dueDate: '2026-04-14' },
    ]);
  });

  it('gives the entry, its lines and its share of the daily, open, period and lead totals', () => {
    const e = billPosting();
    expect(entryRow(e, 'claim')).toEqual([ENTRY, ORG, 'test', '2026-03-15', 'bill', BILL, null, null, '2026-03-15T10:00:00.000Z', 'claim']);
    const r = postingRows(e);
    expect(r.lines).toHaveLength(2);
    expect(r.lines[1]).toEqual([ENTRY, 1, ORG, 'test', '2026-03-15', ACC, '2000', 'credit', 50_000, null, null, null, BILL]);
    // Sorted by the conflict key: two appliers upserting the same rows lock them in one order.
    expect(r.days).toEqual([
      [ORG, 'test', '2000', '2026-03-15', 0, 50_000],
      [ORG, 'test', '6000', '2026-03-15', 50_000, 0],
    ]);
    // The A/P line takes its vendor and due date from the bill; A/P open is credit − debit.
    expect(r.open).toEqual([[ORG, 'test', '2000', '2026-03-15', VENDOR, '2026-04-14', 50_000]]);
    expect(r.periods).toEqual([
      [ORG, 'test', '2000', 0, '2026-03-15', VENDOR, 50_000],
      [ORG, 'test', '2000', 1, '2026-03-01', VENDOR, 50_000],
      [ORG, 'test', '2000', 2, '2026-01-01', VENDOR, 50_000],
    ]);
    expect(r.leads).toEqual([[ORG, 'test', '2000', 30]]);
  });

  it('sums lines of one key into one row; an A/P line without a document is open for no party, with no due date', () => {
    const e = billPosting();
    e.entry.lines = [line('6000', 'debit', 100), line('6000', 'debit', 200), line('2000', 'credit', 300)];
    e.source = { type: 'none' } as unknown as PostingSource;
    const r = postingRows(e);
    expect(r.days).toEqual([
      [ORG, 'test', '2000', '2026-03-15', 0, 300],
      [ORG, 'test', '6000', '2026-03-15', 300, 0],
    ]);
    expect(r.open).toEqual([[ORG, 'test', '2000', '2026-03-15', NIL_UUID, 'infinity', 300]]);
    expect(r.leads).toEqual([]);
  });

  it('sorts rows by their conflict key, whatever the order of the lines', () => {
    const e = billPosting();
    e.entry.lines = [line('6100', 'debit', 1), line('4000', 'credit', 1), line('6000', 'debit', 2), line('1000', 'credit', 2)];
    expect(postingRows(e).days.map((d) => d[2])).toEqual(['1000', '4000', '6000', '6100']);
    expect(
      byKey(
        [
          ['b', 2],
          ['a', 10],
          ['a', 9],
        ],
        2,
      ),
    ).toEqual([
      ['a', 9],
      ['a', 10],
      ['b', 2],
    ]);
  });

  it('keeps a party by the version of its event (updated_at, else created_at)', () => {
    const vendor = {
      type: 'vendor.updated',
      created_at: '2026-01-01T00:00:00Z',
      organization_id: ORG,
      environment: 'test',
      data: { id: VENDOR, display_name: 'Acme', is_1099_eligible: true, updated_at: '2026-01-02T00:00:00Z' },
    };
    expect(partyRow(vendor as unknown as ReferenceEvent)).toEqual([VENDOR, ORG, 'test', 'vendor', 'Acme', true, false, '2026-01-02T00:00:00Z']);
    const customer = { ...vendor, type: 'customer.created', data: { id: VENDOR, name: 'Bob' } };
    expect(partyRow(customer as unknown as ReferenceEvent)).toEqual([VENDOR, ORG, 'test', 'customer', 'Bob', false, false, '2026-01-01T00:00:00Z']);
    // A renamed customer (PATCH /customers/{id}): its updated_at orders the copies, whatever the event's time.
    const renamed = { ...vendor, type: 'customer.updated', data: { id: VENDOR, name: 'Bob King', metadata: { a: '1' }, updated_at: '2026-01-01T00:00:00.001Z' } };
    expect(partyRow(renamed as unknown as ReferenceEvent)).toEqual([VENDOR, ORG, 'test', 'customer', 'Bob King', false, false, '2026-01-01T00:00:00.001Z']);
  });

  it('sums the rows of several postings per key for one write per table (a key that comes to zero is kept; lead: the furthest)', () => {
    const a = postingRows(billPosting());
    const later = billPosting();
    later.entry = { ...later.entry, id: 'e2', entry_date: '2026-03-16', lines: later.entry.lines.map((l) => ({ ...l, amount_cents: 100 })) };
    const b = postingRows(later);
    // A payment of the bill on its date: its A/P key sums to zero with the bill's.
    const paid = billPosting();
    paid.entry = { ...paid.entry, id: 'e3', lines: [line('2000', 'debit', 50_000, { bill_id: BILL }), line('1000', 'credit', 50_000)] };
    const c = postingRows(paid);
    const sum = sumPostingRows([a, b, c]);
    expect(sum.lines).toEqual([...a.lines, ...b.lines, ...c.lines]);
    expect(sum.days).toEqual([
      [ORG, 'test', '1000', '2026-03-15', 0, 50_000],
      [ORG, 'test', '2000', '2026-03-15', 50_000, 50_000],
      [ORG, 'test', '2000', '2026-03-16', 0, 100],
      [ORG, 'test', '6000', '2026-03-15', 50_000, 0],
      [ORG, 'test', '6000', '2026-03-16', 100, 0],
    ]);
    expect(sum.open).toEqual([
      [ORG, 'test', '2000', '2026-03-15', VENDOR, '2026-04-14', 0],
      [ORG, 'test', '2000', '2026-03-16', VENDOR, '2026-04-14', 100],
    ]);
    expect(sum.periods.map((r) => [r[3], r[4], r[6]])).toEqual([
      [0, '2026-03-15', 0],
      [0, '2026-03-16', 100],
      [1, '2026-03-01', 100],
      [2, '2026-01-01', 100],
    ]);
    expect(sum.leads).toEqual([[ORG, 'test', '2000', 30]]);
    // The postings' own rows are not changed.
    expect(a.days).toEqual(postingRows(billPosting()).days);
  });
});
