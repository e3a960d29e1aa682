import { randomUUID } from 'node:crypto';
import type { ConsumedEvent } from '@acct/kit';
import { type TestService, postingLine, startServiceForTest } from '@acct/testing';
import { applyEvent, applyEvents } from './consumers/projection';
import { PROJECTION_TABLES } from './migrations';
import { reportingService } from './service';

/**
 * applyEvents (a batch at once, set-based) against applyEvent (one event after the other, each a
 * batch of one: reporting's one apply path) on the same sequence, cut into batches of every size:
 * the same tables, row for row. The sequence holds
 * what set-based writes could get wrong: totals of several events on one key (one of them summing
 * to zero), a vendor payment and its reversal in either order, a payment reversed twice, an entry
 * again under another event id, a party updated out of order and twice at one version.
 */
describe('reporting: a batch applied set-based equals its events applied in turn', () => {
  const ORG = randomUUID();
  const ACC = randomUUID();
  const [V1, V2, C1] = [randomUUID(), randomUUID(), randomUUID()];
  const [B1, B2, I1] = [randomUUID(), randomUUID(), randomUUID()];
  let svc: TestService;

  const line = (account_code: string, side: 'debit' | 'credit', amount_cents: number, ids: Record<string, string> = {}) => postingLine(ACC, account_code, side, amount_cents, ids);
  const bill = (id: string, vendor: string, due: string) => ({ id, vendor_id: vendor, issue_date: '2026-01-05', due_date: due });
  const invoice = { id: I1, customer_id: C1, issue_date: '2026-03-01', due_date: '2026-04-01' };
  let n = 0;
  const posting = (o: { date: string; sourceType: string; source: Record<string, unknown>; lines: unknown[]; reverses?: string; entryId?: string }): ConsumedEvent => {
    const id = randomUUID();
    const payload = {
      id,
      type: 'journal_entry.posted',
      organization_id: ORG,
      environment: 'test',
      occurred_at: `2026-03-01T00:00:${String(n++ % 60).padStart(2, '0')}.000Z`,
      entry: {
        id: o.entryId ?? randomUUID(),
        entry_date: o.date,
        source_type: o.sourceType,
        source_id: randomUUID(),
        memo: 'a, "memo" {x}',
        reverses_entry_id: o.reverses ?? null,
        lines: o.lines,
      },
      source: { type: o.sourceType, ...o.source },
    };
    return { id, subject: 'x', seq: 0, payload };
  };
  const entryOf = (e: ConsumedEvent) => (e.payload as unknown as { entry: { id: string } }).entry.id;
  const billPosting = (b: ReturnType<typeof bill>, cents: number, date = '2026-01-05') =>
    posting({ date, sourceType: 'bill', source: { bill: b }, lines: [line('5000', 'debit', cents), line('2000', 'credit', cents, { vendor_id: b.vendor_id, bill_id: b.id })] });
  const payment = (b: ReturnType<typeof bill>, cents: number, date: string) =>
    posting({
      date,
      sourceType: 'vendor_payment',
      source: { bills: [b] },
      lines: [line('2000', 'debit', cents, { vendor_id: b.vendor_id, bill_id: b.id }), line('1000', 'credit', cents)],
    });
  const reversal = (of: ConsumedEvent, b: ReturnType<typeof bill>, cents: number, date = '2026-03-10') =>
    posting({
      date,
      sourceType: 'vendor_payment_reversal',
      source: { bills: [b] },
      reverses: entryOf(of),
      lines: [line('1000', 'debit', cents), line('2000', 'credit', cents, { vendor_id: b.vendor_id, bill_id: b.id })],
    });
  const again = (e: ConsumedEvent): ConsumedEvent => {
    const id = randomUUID();
    return { id, subject: 'x', seq: 0, payload: { ...e.payload, id } };
  };
  const party = (type: 'vendor.created' | 'vendor.updated' | 'customer.created', id: string, name: string, updatedAt: string): ConsumedEvent => {
    const eid = randomUUID();
    const data = type.startsWith('vendor')
      ? { id, display_name: name, is_1099_eligible: name.length % 2 === 0, w9_on_file: true, updated_at: updatedAt }
      : { id, name, updated_at: updatedAt };
    return { id: eid, subject: 'x', seq: 0, payload: { id: eid, type, organization_id: ORG, environment: 'test', created_at: '2026-01-01T00:00:00Z', data } };
  };

  const b1 = bill(B1, V1, '2026-02-04');
  const b2 = bill(B2, V2, '2026-05-01');
  const p1 = payment(b1, 1_000, '2026-02-01');
  const p2 = payment(b1, 2_000, '2026-02-02');
  const p3 = payment(b2, 3_000, '2026-02-03');
  const p4 = payment(b1, 4_000, '2025-12-30');
  const p5 = payment(b1, 5_000, '2024-06-01'); // the only payment of its year
  const first = billPosting(b1, 50_000);
  const events: ConsumedEvent[] = [
    first,
    p1,
    reversal(p1, b1, 1_000), // right after its payment
    reversal(p2, b1, 2_000), // before its payment
    p2,
    reversal(p5, b1, 5_000), // before its payment, which is never counted: no row for its year
    p5,
    billPosting(b2, 9_000),
    p3,
    posting({
      date: '2026-03-01',
      sourceType: 'invoice',
      source: { invoice },
      lines: [line('1100', 'debit', 700, { customer_id: C1, invoice_id: I1 }), line('4000', 'credit', 700)],
    }),
    posting({
      date: '2026-03-01',
      sourceType: 'payment',
      source: { invoice },
      lines: [line('1000', 'debit', 700), line('1100', 'credit', 700, { customer_id: C1, invoice_id: I1 })],
    }),
    again(first), // the same entry under another event id
    party('vendor.updated', V1, 'Newer', '2026-02-02T00:00:00.000001Z'),
    party('vendor.updated', V1, 'Older', '2026-02-01T00:00:00Z'),
    party('vendor.created', V1, 'Tie', '2026-02-02T00:00:00.000001Z'),
    reversal(p3, b2, 3_000),
    reversal(p3, b2, 3_000), // a second reversal of one payment
    p4,
    again(p3),
    party('vendor.created', V2, 'Second', '2026-01-01T00:00:00Z'),
    party('customer.created', C1, 'Customer', '2026-01-01T00:00:00Z'),
    reversal(p4, b1, 4_000, '2026-01-02'),
    billPosting(b1, 1, '2026-01-05'), // same keys as the first bill's
    reversal(p3, b2, 3_000), // a third
    party('vendor.updated', V2, 'Later', '2026-04-01T00:00:00Z'),
  ];

  const projection = async () => {
    const tables: Record<string, string[]> = {};
    for (const t of PROJECTION_TABLES) tables[t] = ((await svc.sql(`SELECT t::text AS r FROM ${t} t ORDER BY 1`)) as { r: string }[]).map((x) => x.r);
    return tables;
  };
  const reset = () => svc.sql(`TRUNCATE ${PROJECTION_TABLES.join(', ')}`);

  beforeAll(async () => {
    svc = await startServiceForTest(reportingService(), { poolMax: 2 });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('in batches of every size (and every cut of the sequence into two), the tables of the events applied one by one', async () => {
    await reset();
    for (const e of events) await svc.orm.em.fork().transactional((em) => applyEvent(em, e));
    const reference = await projection();
    expect(reference.vendor_payment_years!.length).toBeGreaterThan(1);
    expect(reference.vendor_payment_years!.some((r) => r.endsWith(',0)'))).toBe(true); // a payment added then taken out
    expect(reference.parties).toHaveLength(3);
    expect(reference.vendor_payment_years!.some((r) => r.includes(',2024,'))).toBe(false);

    const cuts: number[][] = [];
    for (let size = 1; size <= events.length; size++) cuts.push(Array.from({ length: Math.ceil(events.length / size) }, (_, i) => i * size));
    for (let at = 1; at < events.length; at++) cuts.push([0, at]);
    for (const starts of cuts) {
      await reset();
      for (const [i, start] of starts.entries()) {
        const batch = events.slice(start, starts[i + 1] ?? events.length);
        await svc.orm.em.fork().transactional((em) => applyEvents(em, batch));
      }
      expect({ starts, tables: await projection() }).toEqual({ starts, tables: reference });
    }
  }, 120_000);
});
