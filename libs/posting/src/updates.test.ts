import { changesOf, contentFields, nextUpdatedAt, refuseUnlessDraft } from './updates';

describe('PATCH rules (API-DECISIONS §11)', () => {
  it('lets a draft take any field, and a document past draft only metadata (409 naming each field)', () => {
    expect(() => refuseUnlessDraft('invoice', 'i1', 'draft', { line_items: [], metadata: {} })).not.toThrow();
    expect(() => refuseUnlessDraft('invoice', 'i1', 'open', { metadata: { a: '1' } })).not.toThrow();
    expect(() => refuseUnlessDraft('invoice', 'i1', 'open', {})).not.toThrow();
    expect(() => refuseUnlessDraft('bill', 'b1', 'posted', { memo: 'x', metadata: {} })).toThrow(
      expect.objectContaining({ code: 'conflict', details: [expect.objectContaining({ field: '/memo', issue: 'bill_posted' })] }),
    );
    expect(contentFields({ metadata: {}, memo: null, currency: 'USD' })).toEqual(['memo', 'currency']);
  });

  it('names only what differs, JSON compared by content, dates by time', () => {
    const cur = { a: 1, lines: [{ q: 1 }], m: { x: '1', y: '2' }, at: new Date(5) };
    expect(changesOf(cur, { a: 1, lines: [{ q: 1 }], m: { y: '2', x: '1' }, at: new Date(5) })).toEqual({});
    expect(changesOf(cur, { a: 2, lines: [{ q: 2 }], at: new Date(6) })).toEqual({ a: 2, lines: [{ q: 2 }], at: new Date(6) });
  });

  it('moves updated_at forward even when the clock has not', () => {
    const prev = new Date('2026-11-26T00:00:00.000Z');
    expect(nextUpdatedAt(prev, new Date('2026-11-26T00:00:01.000Z')).toISOString()).toBe('2026-11-26T00:00:01.000Z');
    expect(nextUpdatedAt(prev, prev).getTime()).toBe(prev.getTime() + 1);
    expect(nextUpdatedAt(prev, new Date(0)).getTime()).toBe(prev.getTime() + 1);
  });
});
