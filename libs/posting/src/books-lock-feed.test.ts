import { randomUUID } from 'node:crypto';
import type { ConsumedEvent } from '@acct/kit';
import { booksLockRefusal } from './books-lock-feed';

/** What a copy of the lock date takes from its subject: only the owner's books_lock.updated (the consumer parks the rest). */
describe('booksLockRefusal', () => {
  const subject = 'acct.events.reference.books_lock.updated';
  const event = (over: Record<string, unknown> = {}, on = subject): ConsumedEvent => {
    const payload = {
      id: randomUUID(),
      type: 'books_lock.updated',
      created_at: '2026-11-26T10:00:00.000Z',
      organization_id: randomUUID(),
      environment: 'live',
      data: { version: 3, lock_date: null },
      ...over,
    };
    return { id: payload.id, subject: on, seq: 1, payload };
  };

  it('takes a books_lock.updated of either environment, with a date or null', () => {
    expect(booksLockRefusal('acct', event())).toBeUndefined();
    expect(booksLockRefusal('acct', event({ environment: 'test', data: { version: 0, lock_date: '9999-12-31' } }))).toBeUndefined();
  });

  it('refuses another type, another subject, a bad scope and data that is no lock date', () => {
    expect(booksLockRefusal('acct', event({ type: 'vendor.updated' }))).toBe('a "vendor.updated" event, not books_lock.updated');
    expect(booksLockRefusal('acct', event({}, 'acct.events.reference.customer.updated'))).toBe(
      `a books_lock.updated event on acct.events.reference.customer.updated, not on ${subject}`,
    );
    expect(booksLockRefusal('other', event())).toMatch(/not on other\.events\.reference\.books_lock\.updated$/);
    expect(booksLockRefusal('acct', event({ organization_id: undefined }))).toBe('organization_id is not a uuid');
    expect(booksLockRefusal('acct', event({ environment: 'prod' }))).toBe('environment is not test or live');
    for (const data of [undefined, null, {}, { version: 1.5, lock_date: null }, { version: 1 }, { version: 1, lock_date: '2026-02-30' }, { version: 1, lock_date: null, extra: 1 }])
      expect([data, booksLockRefusal('acct', event({ data }))]).toEqual([data, expect.stringMatching(/^data is not a lock date: /)]);
  });
});
