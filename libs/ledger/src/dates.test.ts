import { AppError } from '@acct/contracts';
import { isCalendarDate as contractsIsCalendarDate } from '@acct/contracts';
import { accountingDate, addDays, isCalendarDate, requireOrder, todayUtc } from './dates';
import { caught } from '@acct/testing';

describe('accountingDate', () => {
  it('keeps a plain date as given', () => {
    expect(accountingDate('2026-03-01', 'received_at')).toBe('2026-03-01');
    expect(accountingDate('2024-02-29', 'received_at')).toBe('2024-02-29');
  });

  it.each([
    ['2026-03-01T23:30:00-05:00', '2026-03-02'], // evening in New York is the next UTC day
    ['2026-03-01T00:30:00+02:00', '2026-02-28'], // just after midnight east of UTC is the previous UTC day
    ['2026-03-01T12:00:00Z', '2026-03-01'],
    ['2026-03-01T00:00:00Z', '2026-03-01'],
    ['2026-03-01T23:59:59.999Z', '2026-03-01'],
    ['2024-12-31T23:00:00-01:00', '2025-01-01'],
  ])('takes the UTC date of %p', (value, expected) => {
    expect(accountingDate(value, 'received_at')).toBe(expected);
  });

  it.each(['garbage', '', 'not-a-date', '2026-13-45T99:00:00Z', '0000-01-01', '0001-06-01', '1899-12-31', '9999-12-31T23:59:59-14:00', '1900-01-01T00:00:00+00:01'])(
    'refuses %p as validation_failed on the named field',
    (value) => {
      const err = caught(() => accountingDate(value, 'received_at'));
      expect(err.code).toBe('validation_failed');
      expect(err.message).toContain('received_at');
      expect(err.details).toHaveLength(1);
      expect(err.details[0]).toMatchObject({ field: '/received_at', issue: 'invalid_format' });
    },
  );
});

describe('isCalendarDate', () => {
  it('is the one check of contracts (ajv uses it for format date)', () => {
    expect(isCalendarDate).toBe(contractsIsCalendarDate);
  });
});

describe('addDays', () => {
  it.each([
    ['2026-03-01', 0, '2026-03-01'],
    ['2026-03-01', 1, '2026-03-02'],
    ['2024-02-28', 1, '2024-02-29'], // leap year
    ['2024-02-29', 1, '2024-03-01'],
    ['2025-02-28', 1, '2025-03-01'], // not a leap year
    ['2026-01-31', 30, '2026-03-02'],
    ['2026-01-31', 1, '2026-02-01'],
    ['2025-12-31', 1, '2026-01-01'],
    ['2026-03-01', -1, '2026-02-28'],
    ['2024-03-01', -1, '2024-02-29'],
    ['2026-01-01', 365, '2027-01-01'],
    ['2024-01-01', 366, '2025-01-01'],
  ])('addDays(%p, %p) = %p', (date, days, expected) => {
    expect(addDays(date, days)).toBe(expected);
  });
});

describe('todayUtc', () => {
  it('is the UTC date of the given instant', () => {
    expect(todayUtc(new Date('2026-05-05T23:59:59Z'))).toBe('2026-05-05');
    expect(todayUtc(new Date('2026-05-05T00:00:00Z'))).toBe('2026-05-05');
    expect(todayUtc(new Date('2026-05-05T23:30:00-05:00'))).toBe('2026-05-06');
  });

  it('defaults to now', () => {
    const before = new Date().toISOString().slice(0, 10);
    const today = todayUtc();
    const after = new Date().toISOString().slice(0, 10);
    expect(today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect([before, after]).toContain(today);
  });
});

describe('requireOrder', () => {
  it('allows the same day and a later day', () => {
    expect(() => requireOrder('2026-03-01', '2026-03-01', 'issue_date', 'due_date')).not.toThrow();
    expect(() => requireOrder('2026-03-01', '2026-03-02', 'issue_date', 'due_date')).not.toThrow();
    expect(() => requireOrder('2025-12-31', '2026-01-01', 'issue_date', 'due_date')).not.toThrow();
  });

  it('refuses an earlier second date, on the second field', () => {
    const err = caught(() => requireOrder('2026-03-01', '2026-02-28', 'issue_date', 'due_date'));
    expect(err.code).toBe('validation_failed');
    expect(err.message).toContain('due_date');
    expect(err.message).toContain('issue_date');
    expect(err.details).toHaveLength(1);
    expect(err.details[0]).toMatchObject({ field: '/due_date', issue: 'before_issue_date' });
    expect(err.details[0]?.message).toContain('2026-02-28');
    expect(err.details[0]?.message).toContain('2026-03-01');
  });

  it('names the fields it was given', () => {
    const err = caught(() => requireOrder('2026-01-01', '2025-12-31', 'issue_date', 'expiry_date'));
    expect(err.details[0]).toMatchObject({ field: '/expiry_date', issue: 'before_issue_date' });
  });
});

describe('accountingDate refuses impossible or loose inputs', () => {
  it.each(['2026-13-45', '2026-02-30', '2026-02-30T00:00:00Z', 'March 1, 2026', '1', '2026-03-01T10:00:00'])('%s', (v) => {
    expect(() => accountingDate(v, 'received_at')).toThrow(AppError);
  });
  it('accepts a leap day', () => {
    expect(accountingDate('2024-02-29', 'received_at')).toBe('2024-02-29');
  });
});
