import { caught } from '@acct/testing';
import { lineItemsDto, newLineDocument, sameDocumentContent } from './line-documents';

const scope = { organizationId: '11111111-1111-4111-8111-111111111111', environment: 'test' as const };
const body = { line_items: [{ description: 'x', quantity: 1.5, unit_amount_cents: 101 }], memo: 'm' };

describe('newLineDocument', () => {
  it('prices the lines, applies the defaults and adds the dates the document checks', () => {
    const doc = newLineDocument(scope, body, () => ({ issueDate: '2026-01-10', dueDate: '2026-02-10' }));
    expect(doc).toMatchObject({ ...scope, issueDate: '2026-01-10', dueDate: '2026-02-10', currency: 'USD', memo: 'm', totalCents: 152 });
    expect(doc.lineItems).toEqual([{ description: 'x', quantity: 1.5, unit_amount_cents: 101, amount_cents: 152 }]);
  });

  it('answers the lines first, then the dates, then the currency', () => {
    const badDates = () => {
      throw new Error('dates');
    };
    const badLines = { ...body, currency: 'EUR', line_items: [{ description: 'x', quantity: 0.00001, unit_amount_cents: 1 }] };
    expect(caught(() => newLineDocument(scope, badLines, badDates)).details[0]?.field).toBe('/line_items/0/quantity');
    expect(() => newLineDocument(scope, { ...body, currency: 'EUR' }, badDates)).toThrow('dates');
    expect(caught(() => newLineDocument(scope, { ...body, currency: 'EUR' }, () => ({ issueDate: '2026-01-10' }))).details[0]?.field).toBe('/currency');
  });
});

describe('sameDocumentContent', () => {
  const same = sameDocumentContent<ReturnType<typeof doc>>((d) => ({ due_date: d.dueDate }));
  const doc = (over: Record<string, unknown> = {}) => ({ ...newLineDocument(scope, body, () => ({ issueDate: '2026-01-10', dueDate: '2026-02-10' })), ...over });

  it('is a replay for the same caller content, whatever the server chose (id, time, key order of lines)', () => {
    const [l] = doc().lineItems;
    expect(same(doc(), doc({ lineItems: [{ amount_cents: l!.amount_cents, unit_amount_cents: 101, quantity: 1.5, description: 'x' }] }))).toBe(true);
  });

  it('is not for another line, memo, currency or own field', () => {
    for (const over of [{ memo: null }, { currency: 'CAD' }, { dueDate: '2026-02-11' }, { lineItems: [] }]) expect(same(doc(), doc(over))).toBe(false);
  });
});

describe('lineItemsDto', () => {
  it('shows the four fields of each line, in one order', () => {
    const out = lineItemsDto([{ amount_cents: 2, unit_amount_cents: 2, quantity: 1, description: 'd' }]);
    expect(Object.keys(out[0]!)).toEqual(['description', 'quantity', 'unit_amount_cents', 'amount_cents']);
  });
});
