import { caught } from '@acct/testing';
import { BILL_MOVES, type BillStatus, checkBillAction, checkNoPayments, openBalance } from './bills';

const ID = '11111111-1111-4111-8111-111111111111';
const STATUSES: BillStatus[] = ['draft', 'posted', 'reversed'];

describe('bill state machine', () => {
  it('is the table of API-DECISIONS §5: post draft → posted, reverse posted → reversed', () => {
    expect(BILL_MOVES).toEqual({ post: { from: 'draft', to: 'posted' }, reverse: { from: 'posted', to: 'reversed' } });
  });

  const cases: [BillStatus, 'post' | 'reverse', string][] = [
    ['draft', 'post', 'move'],
    ['posted', 'post', 'same'],
    ['reversed', 'post', 'bill_reversed'],
    ['draft', 'reverse', 'bill_draft'],
    ['posted', 'reverse', 'move'],
    ['reversed', 'reverse', 'same'],
  ];

  it('covers every status and action', () => {
    expect(cases).toHaveLength(STATUSES.length * 2);
  });

  it.each(cases)('%s, %s → %s', (status, action, expected) => {
    if (expected === 'move' || expected === 'same') {
      expect(checkBillAction(ID, status, action)).toBe(expected);
      return;
    }
    const err = caught(() => checkBillAction(ID, status, action));
    expect(err.code).toBe('conflict');
    expect(err.message).toContain(ID);
    expect(err.details).toEqual([expect.objectContaining({ field: '/status', issue: expected })]);
  });
});

describe('openBalance', () => {
  it('is total less paid while posted, 0 while draft or reversed', () => {
    expect(openBalance({ status: 'posted', totalCents: 1000, paidCents: 0 })).toBe(1000);
    expect(openBalance({ status: 'posted', totalCents: 1000, paidCents: 400 })).toBe(600);
    expect(openBalance({ status: 'posted', totalCents: 1000, paidCents: 1000 })).toBe(0);
    expect(openBalance({ status: 'draft', totalCents: 1000, paidCents: 0 })).toBe(0);
    expect(openBalance({ status: 'reversed', totalCents: 1000, paidCents: 0 })).toBe(0);
  });
});

describe('checkNoPayments', () => {
  it('lets a bill without payments be reversed and refuses one with payments (409 bill_has_payments)', () => {
    expect(() => checkNoPayments({ id: ID, paidCents: 0 })).not.toThrow();
    const err = caught(() => checkNoPayments({ id: ID, paidCents: 1 }));
    expect(err.code).toBe('conflict');
    expect(err.details[0]).toMatchObject({ issue: 'bill_has_payments' });
  });
});
