import { randomUUID } from 'node:crypto';
import { catalogueErrors } from './catalogue';

const org = randomUUID();
const customer = {
  id: randomUUID(),
  external_customer_id: 'c1',
  name: 'C',
  email: null,
  status: 'active',
  metadata: {},
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-01T00:00:00.000Z',
};
const reference = (data: unknown, type = 'customer.created') => ({
  id: randomUUID(),
  type,
  created_at: '2026-11-01T00:00:00.000Z',
  organization_id: org,
  environment: 'test',
  data,
});
const outbound = (data: unknown) => ({ ...reference(data, 'payment.posted'), connected_app_id: randomUUID() });
const payment = { payment_id: randomUUID(), invoice_id: randomUUID(), amount_cents: 500, currency: 'USD' };

describe('catalogueErrors', () => {
  it('accepts valid reference and outbound events', () => {
    expect(
      catalogueErrors('p', [
        { subject: 'p.events.reference.customer.created', payload: reference(customer) },
        { subject: 'p.events.outbound.payment.posted', payload: outbound(payment) },
      ]),
    ).toEqual([]);
  });

  it('names a bad payload, a missing envelope field, an unknown type and another prefix', () => {
    const { connected_app_id: _, ...noApp } = outbound(payment);
    const errors = catalogueErrors('p', [
      { subject: 'p.events.reference.customer.created', payload: reference({ ...customer, name: 7 }) },
      { subject: 'p.events.outbound.payment.posted', payload: noApp },
      { subject: 'p.events.outbound.payment.vanished', payload: { ...outbound(payment), type: 'payment.vanished' } },
      { subject: 'q.events.outbound.payment.posted', payload: outbound(payment) },
      { subject: 'p.events.posting.receivables', payload: { type: 'journal_entry.posted' } },
    ]);
    expect(errors).toHaveLength(10);
    expect(errors[0]).toMatch(/row 0 .*customer.created \/name/);
    expect(errors[1]).toMatch(/row 1 .*envelope lacks connected_app_id/);
    expect(errors[2]).toMatch(/row 2 .*not a subject\/type of the catalogue/);
    expect(errors[3]).toMatch(/row 3 .*not a subject\/type of the catalogue/);
    expect(errors.slice(4).every((e) => /^row 4 .*journal_entry.posted \/\w+ required/.test(e))).toBe(true);
  });
});
