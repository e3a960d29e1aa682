import { list, page, single } from './envelope';

describe('envelope', () => {
  it('repeats a single resource under data and its name', () => {
    expect(single('customer', { id: 'x' })).toEqual({ data: { id: 'x' }, customer: { id: 'x' } });
  });

  it('pages rows fetched with limit + 1 and reports has_more', () => {
    expect(page([1, 2, 3], 2, 0)).toEqual({ items: [1, 2], pagination: { limit: 2, offset: 0, count: 2, has_more: true } });
    expect(page([1, 2], 2, 4).pagination).toEqual({ limit: 2, offset: 4, count: 2, has_more: false });
    const l = list('customers', [1], page([1], 25, 0).pagination);
    expect(l.customers).toBe(l.data);
  });
});
