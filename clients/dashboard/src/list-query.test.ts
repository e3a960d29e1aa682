import { listQuery, nextDay } from './list-query';
import { NAV, can, navFor } from './roles';

describe('list queries', () => {
  it('sends only the filters that are set, an inclusive "to" day, and the cursor', () => {
    expect(listQuery({ search: '', from: '', to: '' }, 'external_customer_id', null, 25)).toEqual({ limit: 25 });
    expect(listQuery({ search: ' cus_1 ', from: '2026-01-01', to: '2026-01-31' }, 'external_customer_id', 'cus_x', 25, { status: 'open' })).toEqual({
      status: 'open',
      limit: 25,
      external_customer_id: 'cus_1',
      'created[gte]': '2026-01-01',
      'created[lt]': '2026-02-01',
      starting_after: 'cus_x',
    });
    // No search parameter on this list: the text is not sent; a malformed day is not either.
    expect(listQuery({ search: 'x', from: '01/02/2026', to: '' }, undefined, null, 10)).toEqual({ limit: 10 });
  });

  it('knows the next day across months and leap years', () => {
    expect(nextDay('2026-12-31')).toBe('2027-01-01');
    expect(nextDay('2028-02-28')).toBe('2028-02-29');
  });
});

describe('what each role is offered', () => {
  it('gives members, invites and the audit log to owners only, keys and webhooks to owners and developers', () => {
    const labels = (r: Parameters<typeof navFor>[0]) => navFor(r).map((n) => n.label);
    expect(labels('owner')).toEqual(NAV.map((n) => n.label));
    expect(labels('developer')).not.toContain('Members');
    expect(labels('developer')).toContain('Keys');
    for (const r of ['accountant', 'viewer'] as const) {
      expect(labels(r)).not.toEqual(expect.arrayContaining(['Keys']));
      expect(labels(r)).not.toContain('Webhooks');
      expect(labels(r)).not.toContain('Audit log');
      expect(labels(r)).toContain('Reports');
    }
    expect(can('accountant', 'books_lock')).toBe(true);
    expect(can('viewer', 'books_lock')).toBe(false);
    expect(can('viewer', 'write')).toBe(false);
    expect(can(undefined, 'write')).toBe(false);
  });
});
