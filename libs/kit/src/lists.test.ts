import { AppError } from '@acct/contracts';
import { createdInstant, cursorPage, keysetSql, listQuery, pageInMemory } from './lists';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';

function caught(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    return e as AppError;
  }
  throw new Error('did not throw');
}

describe('listQuery', () => {
  it('reads limit, offset, one cursor (lower-cased) and the created bounds in a fixed order', () => {
    expect(listQuery({ limit: 25, offset: 0 })).toEqual({ limit: 25, offset: 0, cursor: null, created: [] });
    expect(listQuery({ limit: 5, starting_after: A.toUpperCase() }).cursor).toEqual({ param: 'starting_after', id: A });
    expect(listQuery({ limit: 5, offset: 0, ending_before: B }).cursor).toEqual({ param: 'ending_before', id: B });
    expect(listQuery({ limit: 5, 'created[lt]': '2026-03-02T10:00:00.123456+02:00', 'created[gte]': '2026-03-01' }).created).toEqual([
      { param: 'created[gte]', op: '>=', at: '2026-03-01T00:00:00Z' },
      { param: 'created[lt]', op: '<', at: '2026-03-02T10:00:00.123456+02:00' },
    ]);
  });

  it('refuses both cursors at once, naming both, and an offset beside a cursor, naming offset', () => {
    expect(caught(() => listQuery({ limit: 5, starting_after: A, ending_before: B }))).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'starting_after' }, { field: 'ending_before' }],
    });
    expect(caught(() => listQuery({ limit: 5, offset: 3, starting_after: A }))).toMatchObject({ code: 'validation_failed', details: [{ field: 'offset', issue: 'conflicts' }] });
    expect(caught(() => listQuery({ limit: 5, offset: 1, ending_before: A }))).toMatchObject({ details: [{ field: 'offset' }] });
  });

  it('reads a YYYY-MM-DD bound as 00:00 UTC and keeps a date-time as sent', () => {
    expect(createdInstant('2026-01-31')).toBe('2026-01-31T00:00:00Z');
    expect(createdInstant('2026-01-31T23:59:59-05:00')).toBe('2026-01-31T23:59:59-05:00');
  });
});

describe('keysetSql', () => {
  const cursorTime = 'SELECT c.created_at FROM t c WHERE c.id = ?';
  it('without a cursor: the created bounds, the list order (newest first, ties by id), limit + 1 and the offset', () => {
    const k = keysetSql(listQuery({ limit: 10, offset: 20, 'created[gt]': '2026-01-01' }), { time: 'created_at', cursorTime });
    expect(k).toEqual({ where: ['created_at > ?::timestamptz'], args: ['2026-01-01T00:00:00Z'], order: 'created_at DESC, id DESC', limit: 11, offset: 20 });
  });

  it('starting_after: a row comparison below the cursor, read in list order', () => {
    const k = keysetSql(listQuery({ limit: 10, starting_after: A }), { time: 'e.posted_at', id: 'e.id', cursorTime });
    expect(k.where).toEqual([`(e.posted_at, e.id) < ((${cursorTime}), ?::uuid)`]);
    expect(k.args).toEqual([A, A]);
    expect(k.order).toBe('e.posted_at DESC, e.id DESC');
  });

  it('ending_before: a row comparison above the cursor, read oldest first (cursorPage turns it back)', () => {
    const k = keysetSql(listQuery({ limit: 10, ending_before: A }), { time: 'created_at', cursorTime });
    expect(k.where).toEqual([`(created_at, id) > ((${cursorTime}), ?::uuid)`]);
    expect(k.order).toBe('created_at ASC, id ASC');
  });
});

describe('cursorPage and pageInMemory', () => {
  const all = Array.from({ length: 10 }, (_, i) => ({ id: `id-${i}` })); // in list order
  const ids = (p: { items: { id: string }[] }) => p.items.map((x) => x.id);

  it('starting_after: the items after the cursor; has_more while more follow', () => {
    const p = pageInMemory(all, listQuery({ limit: 3, starting_after: 'id-2' }), 1e6);
    expect(ids(p)).toEqual(['id-3', 'id-4', 'id-5']);
    expect(p.pagination).toEqual({ limit: 3, offset: 0, count: 3, has_more: true });
    const last = pageInMemory(all, listQuery({ limit: 3, starting_after: 'id-6' }), 1e6);
    expect(ids(last)).toEqual(['id-7', 'id-8', 'id-9']);
    expect(last.pagination.has_more).toBe(false);
  });

  it('ending_before: the page just before the cursor, in list order; has_more while more precede', () => {
    const p = pageInMemory(all, listQuery({ limit: 3, ending_before: 'id-7' }), 1e6);
    expect(ids(p)).toEqual(['id-4', 'id-5', 'id-6']);
    expect(p.pagination.has_more).toBe(true);
    const first = pageInMemory(all, listQuery({ limit: 3, ending_before: 'id-3' }), 1e6);
    expect(ids(first)).toEqual(['id-0', 'id-1', 'id-2']);
    expect(first.pagination.has_more).toBe(false);
    expect(ids(pageInMemory(all, listQuery({ limit: 3, ending_before: 'id-0' }), 1e6))).toEqual([]);
  });

  it('an id that is not in the list is a 400 naming the cursor', () => {
    expect(caught(() => pageInMemory(all, listQuery({ limit: 3, ending_before: 'nope' }), 1e6))).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'ending_before', issue: 'not_found' }],
    });
  });

  it('offset pages as before', () => {
    expect(ids(pageInMemory(all, listQuery({ limit: 4, offset: 8 }), 1e6))).toEqual(['id-8', 'id-9']);
  });

  it('a page cut by size walking back keeps the items nearest the cursor', () => {
    const big = Array.from({ length: 5 }, (_, i) => ({ id: `id-${i}`, pad: 'x'.repeat(100) }));
    // read walking back from id-4: id-3, id-2, id-1, id-0
    const p = cursorPage([big[3]!, big[2]!, big[1]!, big[0]!], listQuery({ limit: 3, ending_before: 'id-4' }), 250);
    expect(ids(p)).toEqual(['id-2', 'id-3']);
    expect(p.pagination).toMatchObject({ count: 2, has_more: true });
  });
});
