import { checkPayment, checkVoid, openBalance, statusForPaid, type InvoiceStatus } from './invoices';
import { caught } from '@acct/testing';

const ID = '11111111-1111-4111-8111-111111111111';
const inv = (status: InvoiceStatus, totalCents = 1000, paidCents = 0) => ({ id: ID, status, totalCents, paidCents });

describe('statusForPaid', () => {
  it.each([
    [1000, 0, 'open'],
    [1000, 1, 'partially_paid'],
    [1000, 999, 'partially_paid'],
    [1000, 1000, 'paid'],
  ] as const)('statusForPaid(%p, %p) = %p', (total, paid, expected) => {
    expect(statusForPaid(total, paid)).toBe(expected);
  });
});

describe('openBalance', () => {
  it('is 0 for a draft, whatever its total', () => {
    expect(openBalance(inv('draft', 1000, 0))).toBe(0);
  });

  it('is total less paid once posted', () => {
    expect(openBalance(inv('open', 1000, 0))).toBe(1000);
    expect(openBalance(inv('partially_paid', 1000, 300))).toBe(700);
    expect(openBalance(inv('paid', 1000, 1000))).toBe(0);
  });

  it('is 0 once void', () => {
    expect(openBalance(inv('void', 1000, 0))).toBe(0);
  });
});

describe('checkPayment', () => {
  it('refuses a draft invoice as a conflict with issue invoice_draft', () => {
    const err = caught(() => checkPayment(inv('draft'), 100));
    expect(err.code).toBe('conflict');
    expect(err.message).toContain(ID);
    expect(err.details).toHaveLength(1);
    expect(err.details[0]).toMatchObject({ field: '/invoice_id', issue: 'invoice_draft' });
  });

  it('refuses a paid invoice as a conflict with issue invoice_paid', () => {
    const err = caught(() => checkPayment(inv('paid', 1000, 1000), 1));
    expect(err.code).toBe('conflict');
    expect(err.details[0]).toMatchObject({ field: '/invoice_id', issue: 'invoice_paid' });
  });

  it('refuses more than the open balance', () => {
    const err = caught(() => checkPayment(inv('open', 1000, 0), 1001));
    expect(err.code).toBe('conflict');
    expect(err.details).toHaveLength(1);
    expect(err.details[0]).toMatchObject({ field: '/amount_cents', issue: 'exceeds_open_balance' });
    expect(err.details[0]?.message).toContain('1000');

    const partial = caught(() => checkPayment(inv('partially_paid', 1000, 400), 601));
    expect(partial.code).toBe('conflict');
    expect(partial.details[0]).toMatchObject({ issue: 'exceeds_open_balance' });
    expect(partial.details[0]?.message).toContain('600');
  });

  it('accepts exactly the open balance, or less', () => {
    expect(() => checkPayment(inv('open', 1000, 0), 1000)).not.toThrow();
    expect(() => checkPayment(inv('open', 1000, 0), 1)).not.toThrow();
    expect(() => checkPayment(inv('partially_paid', 1000, 400), 600)).not.toThrow();
    expect(() => checkPayment(inv('partially_paid', 1000, 400), 599)).not.toThrow();
  });
});

describe('checkPayment refuses non-positive amounts', () => {
  it.each([0, -5, 1.5])('%s', (amount) => {
    expect(() => checkPayment({ id: 'i', status: 'open', totalCents: 1000, paidCents: 0 }, amount)).toThrow(/greater than 0/);
  });
});

describe('checkPayment on a void invoice', () => {
  it('refuses it as a conflict with issue invoice_void', () => {
    const err = caught(() => checkPayment(inv('void'), 100));
    expect(err.code).toBe('conflict');
    expect(err.details[0]).toMatchObject({ field: '/invoice_id', issue: 'invoice_void' });
  });
});

describe('checkVoid', () => {
  const v = (status: InvoiceStatus, paidCents = 0, issueDate = '2026-03-01') => ({ id: ID, status, paidCents, issueDate });

  it('voids a draft and an open invoice with nothing paid, on or after the issue date', () => {
    expect(checkVoid(v('draft'), '2026-03-01')).toBe('move');
    expect(checkVoid(v('open'), '2026-03-01')).toBe('move');
    expect(checkVoid(v('open'), '9999-12-31')).toBe('move');
  });

  it('answers a void invoice as a repeat, whatever date it is given', () => {
    expect(checkVoid(v('void'), '2026-03-05')).toBe('same');
    expect(checkVoid(v('void'), '1900-01-01')).toBe('same');
  });

  it.each([
    ['partially_paid', 400],
    ['paid', 1000],
  ] as const)('refuses a %s invoice as a conflict naming its status', (status, paid) => {
    const err = caught(() => checkVoid(v(status, paid), '2026-03-05'));
    expect(err.code).toBe('conflict');
    expect(err.message).toContain(ID);
    expect(err.details[0]).toMatchObject({ field: '/status', issue: `invoice_${status}` });
  });

  it('refuses a zero-total invoice that posted straight to paid (nothing to void: it is paid)', () => {
    expect(caught(() => checkVoid(v('paid', 0), '2026-03-05')).code).toBe('conflict');
  });

  it('refuses a void date before the issue date as a validation error naming /void_date', () => {
    const err = caught(() => checkVoid(v('open', 0, '2026-03-02'), '2026-03-01'));
    expect(err.code).toBe('validation_failed');
    expect(err.details).toEqual([expect.objectContaining({ field: '/void_date', issue: 'before_issue_date' })]);
    expect(err.details[0]?.message).toContain('2026-03-02');
    expect(caught(() => checkVoid(v('draft', 0, '2026-03-02'), '2026-03-01')).code).toBe('validation_failed');
  });

  it('checks the state before the date: a paid invoice is a conflict whatever the date', () => {
    expect(caught(() => checkVoid(v('paid', 1000, '2026-03-02'), '2026-03-01')).code).toBe('conflict');
  });
});
