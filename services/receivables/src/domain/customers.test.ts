import { sameCustomerContent } from './customers';

const stored = (name: string, email: string | null) => ({ name, email });

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
});
