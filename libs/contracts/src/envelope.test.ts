import { labelOf, pageWithin, list, page, pluralOf, single } from './envelope';

describe('envelope', () => {
  it('names a page by the plural of its record and a record in words', () => {
    expect(pluralOf('processor_payout')).toBe('processor_payouts');
    expect(labelOf('processor_payout')).toBe('Processor payout');
    expect(labelOf('bill')).toBe('Bill');
  });

  it('repeats a single resource under data and its name', () => {
    expect(single('customer', { id: 'x' })).toEqual({ data: { id: 'x' }, customer: { id: 'x' } });
  });

  it('pages rows fetched with limit + 1 and reports has_more', () => {
    expect(page([1, 2, 3], 2, 0)).toEqual({ items: [1, 2], pagination: { limit: 2, offset: 0, count: 2, has_more: true } });
    expect(page([1, 2], 2, 4).pagination).toEqual({ limit: 2, offset: 4, count: 2, has_more: false });
    const l = list('customers', [1], page([1], 25, 0).pagination);
    expect(l.customers).toBe(l.data);
  });

  it('pageWithin bounds a page in bytes as well as items, always keeping one item', () => {
    const item = (n: number) => ({ d: 'x'.repeat(n) });
    // 3 items of ~110 bytes within 1000 bytes: all of them; the 4th row fetched says has_more.
    expect(pageWithin([item(100), item(100), item(100), item(1)], 3, 0, 1000).pagination).toEqual({ limit: 3, offset: 0, count: 3, has_more: true });
    expect(pageWithin([item(100), item(100)], 3, 0, 1000).pagination.has_more).toBe(false);
    // The second item would pass 250 bytes: one item, has_more even though fewer than limit rows came.
    const p = pageWithin([item(200), item(200)], 5, 10, 250);
    expect(p.items).toHaveLength(1);
    expect(p.pagination).toEqual({ limit: 5, offset: 10, count: 1, has_more: true });
    // One item larger than the budget still comes back alone.
    expect(pageWithin([item(5000)], 5, 0, 250).items).toHaveLength(1);
    // Bytes, not characters: 'é' is two bytes in UTF-8.
    expect(pageWithin([{ d: 'é'.repeat(60) }, { d: 'é'.repeat(60) }], 5, 0, 200).items).toHaveLength(1);
  });
});
