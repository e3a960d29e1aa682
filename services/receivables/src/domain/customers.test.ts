import type { Metadata } from '@acct/contracts';
import { customerPatch, sameCustomerContent } from './customers';

const stored = (name: string, email: string | null, metadata: Metadata = {}) => ({ name, email, metadata });

describe('sameCustomerContent', () => {
  it('is true for the same name and email', () => {
    expect(sameCustomerContent(stored('Acme', 'a@b.c'), { external_customer_id: 'c-1', name: 'Acme', email: 'a@b.c' })).toBe(true);
  });

  it('is false for a different name', () => {
    expect(sameCustomerContent(stored('Acme', 'a@b.c'), { external_customer_id: 'c-1', name: 'Acme Inc', email: 'a@b.c' })).toBe(false);
    expect(sameCustomerContent(stored('Acme', null), { external_customer_id: 'c-1', name: 'acme' })).toBe(false);
  });

  it('is false for a different email', () => {
    expect(sameCustomerContent(stored('Acme', 'a@b.c'), { external_customer_id: 'c-1', name: 'Acme', email: 'x@b.c' })).toBe(false);
  });

  it('treats an email missing from the body as equal to a stored null', () => {
    expect(sameCustomerContent(stored('Acme', null), { external_customer_id: 'c-1', name: 'Acme' })).toBe(true);
  });

  it('is false when the body omits an email the stored customer has', () => {
    expect(sameCustomerContent(stored('Acme', 'a@b.c'), { external_customer_id: 'c-1', name: 'Acme' })).toBe(false);
  });

  it('is false when the body adds an email the stored customer lacks', () => {
    expect(sameCustomerContent(stored('Acme', null), { external_customer_id: 'c-1', name: 'Acme', email: 'a@b.c' })).toBe(false);
  });

  it('compares metadata in any key order; absent, {} and only "" values are the same', () => {
    const m = stored('Acme', null, { a: '1', b: '2' });
    expect(sameCustomerContent(m, { external_customer_id: 'c-1', name: 'Acme', metadata: { b: '2', a: '1' } })).toBe(true);
    expect(sameCustomerContent(m, { external_customer_id: 'c-1', name: 'Acme', metadata: { a: '1' } })).toBe(false);
    expect(sameCustomerContent(m, { external_customer_id: 'c-1', name: 'Acme' })).toBe(false);
    expect(sameCustomerContent(stored('Acme', null), { external_customer_id: 'c-1', name: 'Acme', metadata: { x: '' } })).toBe(true);
  });
});

describe('customerPatch', () => {
  it('names only the fields the body gives, email null clearing it, metadata merged', () => {
    const c = stored('Acme', 'a@b.c', { a: '1', b: '2' });
    expect(customerPatch(c, {})).toEqual({});
    expect(customerPatch(c, { name: 'Acme Inc', email: null })).toEqual({ name: 'Acme Inc', email: null });
    expect(customerPatch(c, { metadata: { a: '', c: '3' } })).toEqual({ metadata: { b: '2', c: '3' } });
  });

  it('refuses a merge that leaves more than 50 keys (400 on /metadata)', () => {
    const full = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    expect(() => customerPatch(stored('Acme', null, full), { metadata: { one_more: 'v' } })).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    expect(customerPatch(stored('Acme', null, full), { metadata: { k0: '', one_more: 'v' } }).metadata).toHaveProperty('one_more', 'v');
  });
});
