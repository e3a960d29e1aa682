import { isCalendarDate, isDateTime, utcDateOf } from './dates';
import { limits } from './limits';
import { compileBody } from './validate';
import { date, dateTime, obj } from './schemas/common';

describe('isCalendarDate', () => {
  it.each(['1900-01-01', '2024-02-29', '2026-12-31', '9999-12-31', limits.date_min, limits.date_max])('takes %p', (v) => {
    expect(isCalendarDate(v)).toBe(true);
  });

  it.each([
    '0000-01-01', // year 0: Date.UTC has no such year in this range
    '0001-01-01', // Date.UTC would read it as 1901
    '0099-12-31',
    '1899-12-31',
    '2026-02-30',
    '2025-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-1-1',
    '+10000-01-01',
    '10000-01-01',
    '2026-03-01T00:00:00Z',
    '',
  ])('refuses %p', (v) => {
    expect(isCalendarDate(v)).toBe(false);
  });
});

describe('utcDateOf', () => {
  it.each([
    ['2026-03-01T23:30:00-05:00', '2026-03-02'],
    ['2026-03-01T00:30:00+02:00', '2026-02-28'],
    ['2026-03-01T12:00:00.123456Z', '2026-03-01'],
    ['2026-03-01t12:00:00z', '2026-03-01'],
    ['9999-12-31T23:59:59Z', '9999-12-31'],
    ['9999-12-31T23:59:59+14:00', '9999-12-31'],
    ['1900-01-01T00:00:00Z', '1900-01-01'],
    ['1900-01-01T10:00:00+09:00', '1900-01-01'],
  ])('%p is on %p (UTC)', (v, expected) => {
    expect(utcDateOf(v)).toBe(expected);
    expect(isDateTime(v)).toBe(true);
  });

  it.each([
    '9999-12-31T23:59:59-14:00', // UTC date 10000-01-01
    '9999-12-31T20:00:00-05:00',
    '1900-01-01T00:00:00+01:00', // UTC date 1899-12-31
    '0000-01-01T00:00:00Z',
    '0050-06-01T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '2026-03-01T24:00:00Z',
    '2026-03-01T23:59:60Z',
    '2026-03-01T12:00:00+24:00',
    '2026-03-01T12:00Z', // no seconds
    '2026-03-01T12:00:00', // no offset
    '2026-03-01',
    'garbage',
  ])('refuses %p', (v) => {
    expect(utcDateOf(v)).toBeNull();
    expect(isDateTime(v)).toBe(false);
  });
});

describe('utcDateOf of a UTC date-time', () => {
  it('gives what a Date round trip gives, for every day of a leap year, and of the first and last years', () => {
    const days: string[] = [];
    for (const year of [1900, 2024, 9999]) {
      for (let t = Date.UTC(year, 0, 1); new Date(t).getUTCFullYear() === year; t += 86_400_000) days.push(new Date(t).toISOString().slice(0, 10));
    }
    expect(days).toHaveLength(365 + 366 + 365);
    for (const d of days) {
      for (const time of ['00:00:00Z', '23:59:59.999999z', '12:34:56Z']) {
        const v = `${d}T${time}`;
        expect(utcDateOf(v)).toBe(new Date(Date.parse(v.toUpperCase())).toISOString().slice(0, 10));
      }
    }
  });
});

describe("ajv's date and date-time formats use the same range", () => {
  const validate = compileBody(obj({ d: date, t: dateTime }));
  it('accepts dates and date-times in range', () => {
    expect(validate({ d: '9999-12-31', t: '9999-12-31T23:59:59Z' })).toBe(true);
    expect(validate({ d: '1900-01-01', t: '1900-01-01T00:00:00Z' })).toBe(true);
  });
  it.each([
    [{ d: '0000-01-01', t: '2026-01-01T00:00:00Z' }, '/d'],
    [{ d: '0099-01-01', t: '2026-01-01T00:00:00Z' }, '/d'],
    [{ d: '2026-01-01', t: '9999-12-31T23:59:59-14:00' }, '/t'],
    [{ d: '2026-01-01', t: '0001-01-01T00:00:00Z' }, '/t'],
  ])('refuses %j at %s', (input, field) => {
    expect(validate(input)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toEqual([field]);
  });
});
