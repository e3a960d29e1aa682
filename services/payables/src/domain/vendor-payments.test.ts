import { caught } from '@acct/testing';
import { type BillForAllocation, PAYMENT_MOVES, checkAllocationShape, checkAllocationsAgainstBills, checkPaymentAction } from './vendor-payments';

const ID = '11111111-1111-4111-8111-111111111111';
const VENDOR = '22222222-2222-4222-8222-222222222222';
const OTHER_VENDOR = '33333333-3333-4333-8333-333333333333';
const billId = (n: number) => `44444444-4444-4444-8444-${String(n).padStart(12, '0')}`;
const bill = (n: number, over: Partial<BillForAllocation> = {}): BillForAllocation => ({
  id: billId(n),
  vendorId: VENDOR,
  status: 'posted',
  totalCents: 1000,
  paidCents: 0,
  ...over,
});
const mapOf = (...bills: BillForAllocation[]) => new Map(bills.map((b) => [b.id, b]));

describe('vendor payment state machine', () => {
  it('is ready → posted → reversed', () => {
    expect(PAYMENT_MOVES).toEqual({ post: { from: 'ready', to: 'posted' }, reverse: { from: 'posted', to: 'reversed' } });
  });

  it.each([
    ['ready', 'post', 'move'],
    ['posted', 'post', 'same'],
    ['posted', 'reverse', 'move'],
    ['reversed', 'reverse', 'same'],
  ] as const)('%s, %s → %s', (status, action, expected) => {
    expect(checkPaymentAction(ID, status, action)).toBe(expected);
  });

  it.each([
    ['reversed', 'post', 'vendor_payment_reversed'],
    ['ready', 'reverse', 'vendor_payment_ready'],
  ] as const)('%s, %s → 409 %s', (status, action, issue) => {
    const err = caught(() => checkPaymentAction(ID, status, action));
    expect(err.code).toBe('conflict');
    expect(err.details[0]).toMatchObject({ field: '/status', issue });
  });
});

describe('checkAllocationShape', () => {
  it('accepts 1 to 100 rows, one per bill, that sum to the amount', () => {
    expect(() => checkAllocationShape(500, [{ bill_id: billId(1), amount_cents: 500 }])).not.toThrow();
    const hundred = Array.from({ length: 100 }, (_, i) => ({ bill_id: billId(i), amount_cents: 3 }));
    expect(() => checkAllocationShape(300, hundred)).not.toThrow();
  });

  it('refuses no rows and more than 100 rows', () => {
    expect(caught(() => checkAllocationShape(1, [])).details[0]).toMatchObject({ field: '/allocations', issue: 'too_few' });
    const many = Array.from({ length: 101 }, (_, i) => ({ bill_id: billId(i), amount_cents: 1 }));
    expect(caught(() => checkAllocationShape(101, many)).details[0]).toMatchObject({ field: '/allocations', issue: 'too_many' });
  });

  it('refuses a bill allocated twice (also 100 rows to one bill), naming each repeat', () => {
    const same = Array.from({ length: 100 }, () => ({ bill_id: billId(1), amount_cents: 1 }));
    const err = caught(() => checkAllocationShape(100, same));
    expect(err.code).toBe('validation_failed');
    expect(err.details).toHaveLength(99);
    expect(err.details[0]).toMatchObject({ field: '/allocations/1/bill_id', issue: 'duplicate_bill' });
    // Case does not make a uuid another bill.
    const mixed = [
      { bill_id: billId(1), amount_cents: 1 },
      { bill_id: billId(1).toUpperCase(), amount_cents: 1 },
    ];
    expect(caught(() => checkAllocationShape(2, mixed)).details[0]?.issue).toBe('duplicate_bill');
  });

  it.each([499, 501, 0])('refuses allocations of 500 for amount %p (allocation_sum_mismatch)', (amount) => {
    const err = caught(() =>
      checkAllocationShape(amount, [
        { bill_id: billId(1), amount_cents: 200 },
        { bill_id: billId(2), amount_cents: 300 },
      ]),
    );
    expect(err.code).toBe('validation_failed');
    expect(err.details[0]).toMatchObject({ field: '/allocations', issue: 'allocation_sum_mismatch' });
  });

  it('refuses a non-positive or fractional row amount', () => {
    expect(caught(() => checkAllocationShape(0, [{ bill_id: billId(1), amount_cents: 0 }])).details[0]).toMatchObject({
      field: '/allocations/0/amount_cents',
      issue: 'out_of_range',
    });
    expect(caught(() => checkAllocationShape(1.5, [{ bill_id: billId(1), amount_cents: 1.5 }])).details[0]?.issue).toBe('out_of_range');
  });

  it('sums exactly near the limits (no float drift)', () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({ bill_id: billId(i), amount_cents: 100_000_000_000 }));
    expect(() => checkAllocationShape(10_000_000_000_000, rows)).not.toThrow();
    expect(() => checkAllocationShape(10_000_000_000_001, rows)).toThrow(/sum/);
  });
});

describe('checkAllocationsAgainstBills', () => {
  const alloc = (n: number, amount: number) => ({ bill_id: billId(n), amount_cents: amount });

  it('accepts allocations within the open balances of posted bills of the vendor', () => {
    expect(() => checkAllocationsAgainstBills(VENDOR, [alloc(1, 1000), alloc(2, 400)], mapOf(bill(1), bill(2, { paidCents: 600 })), true)).not.toThrow();
  });

  it('answers 404 for a bill not in the scope, naming each missing row', () => {
    const err = caught(() => checkAllocationsAgainstBills(VENDOR, [alloc(1, 1), alloc(2, 1), alloc(3, 1)], mapOf(bill(2)), false));
    expect(err.code).toBe('not_found');
    expect(err.details.map((d) => d.field)).toEqual(['/allocations/0/bill_id', '/allocations/2/bill_id']);
  });

  it("refuses another vendor's bill (400 vendor_mismatch), even for a ready payment", () => {
    const err = caught(() => checkAllocationsAgainstBills(VENDOR, [alloc(1, 1)], mapOf(bill(1, { vendorId: OTHER_VENDOR })), false));
    expect(err.code).toBe('validation_failed');
    expect(err.details[0]).toMatchObject({ field: '/allocations/0/bill_id', issue: 'vendor_mismatch' });
  });

  it('checks state and balance only when posting', () => {
    const bills = mapOf(bill(1, { status: 'draft' }), bill(2, { status: 'reversed' }), bill(3, { paidCents: 900 }));
    expect(() => checkAllocationsAgainstBills(VENDOR, [alloc(1, 5), alloc(2, 5), alloc(3, 101)], bills, false)).not.toThrow();
    const err = caught(() => checkAllocationsAgainstBills(VENDOR, [alloc(1, 5), alloc(2, 5), alloc(3, 101)], bills, true));
    expect(err.code).toBe('conflict');
    expect(err.details).toEqual([
      expect.objectContaining({ field: '/allocations/0/bill_id', issue: 'bill_draft' }),
      expect.objectContaining({ field: '/allocations/1/bill_id', issue: 'bill_reversed' }),
      expect.objectContaining({ field: '/allocations/2/amount_cents', issue: 'exceeds_open_balance' }),
    ]);
    expect(err.details[2]?.message).toContain('100');
  });

  it('accepts exactly the open balance and refuses one cent more', () => {
    expect(() => checkAllocationsAgainstBills(VENDOR, [alloc(1, 250)], mapOf(bill(1, { paidCents: 750 })), true)).not.toThrow();
    expect(caught(() => checkAllocationsAgainstBills(VENDOR, [alloc(1, 251)], mapOf(bill(1, { paidCents: 750 })), true)).details[0]?.issue).toBe('exceeds_open_balance');
  });
});
