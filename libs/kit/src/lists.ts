import { AppError, CREATED_PARAMS, type Pagination, pageWithin } from '@acct/contracts';

/** Which way a cursor walks: `after` the older items (starting_after), `before` the newer ones (ending_before). */
export type CursorParam = 'starting_after' | 'ending_before';
export interface Cursor {
  param: CursorParam;
  id: string;
}

/** A creation-time bound of the query: `created[gte]` → { op: '>=', at: '2026-03-01T00:00:00Z' }. */
export interface CreatedBound {
  param: (typeof CREATED_PARAMS)[number];
  op: '>=' | '>' | '<=' | '<';
  /** An RFC 3339 instant, for Postgres to read as timestamptz (full precision, the caller's offset kept). */
  at: string;
}

/** The validated page of a list request (the gateway applied the schema: types, defaults and bounds). */
export interface ListQuery {
  limit: number;
  offset: number;
  cursor: Cursor | null;
  created: CreatedBound[];
}

const OPS: Record<CreatedBound['param'], CreatedBound['op']> = { 'created[gte]': '>=', 'created[gt]': '>', 'created[lte]': '<=', 'created[lt]': '<' };

/** `YYYY-MM-DD` means 00:00 UTC of that day; a date-time is kept as sent. */
export const createdInstant = (value: string): string => (/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);

/**
 * The page and created filters of a list query: limit and offset, at most one cursor
 * (400 naming both when both come), no offset beside a cursor (400 naming offset), and the created
 * bounds. The values were checked by the route's schema at the gateway.
 */
export function listQuery(query: Record<string, unknown>): ListQuery {
  const limit = Number(query.limit);
  const offset = query.offset === undefined ? 0 : Number(query.offset);
  const after = query.starting_after as string | undefined;
  const before = query.ending_before as string | undefined;
  if (after !== undefined && before !== undefined) {
    throw AppError.validation('Give starting_after or ending_before, not both.', [
      { field: 'starting_after', issue: 'conflicts', message: 'starting_after cannot be combined with ending_before.' },
      { field: 'ending_before', issue: 'conflicts', message: 'ending_before cannot be combined with starting_after.' },
    ]);
  }
  const cursor: Cursor | null =
    after !== undefined ? { param: 'starting_after', id: after.toLowerCase() } : before !== undefined ? { param: 'ending_before', id: before.toLowerCase() } : null;
  if (cursor && offset !== 0) {
    throw AppError.validation(`offset cannot be combined with ${cursor.param}.`, [
      { field: 'offset', issue: 'conflicts', message: `offset must be 0 or absent with ${cursor.param}: the cursor says where the page starts.` },
    ]);
  }
  const created: CreatedBound[] = [];
  for (const param of CREATED_PARAMS) {
    const v = query[param] as string | undefined;
    if (v !== undefined) created.push({ param, op: OPS[param], at: createdInstant(v) });
  }
  return { limit, offset, cursor, created };
}

/** The 400 for a cursor that is not an item of the list (unknown, deleted, or of another organization or environment). */
export function unknownCursor(c: Cursor): AppError {
  return AppError.validation(`${c.param} is not an item of this list.`, [
    { field: c.param, issue: 'not_found', message: `${c.param} must be the id of an item of this list, in the key's organization and environment.` },
  ]);
}

/** Keyset: the SQL comparison of `(time, id)` against the cursor's, for a list ordered `time DESC, id DESC`. */
export const keysetOp = (c: Cursor): '<' | '>' => (c.param === 'starting_after' ? '<' : '>');
/** The order to read rows in: the list's (DESC) when walking forward, reversed when walking back from ending_before. */
export const readOrder = (c: Cursor | null): 'desc' | 'asc' => (c?.param === 'ending_before' ? 'asc' : 'desc');

/**
 * The page of rows read with limit + 1 in walking order (readOrder): up to limit items, cut at maxBytes
 * of JSON, has_more meaning more in the direction walked. With ending_before the rows came nearest the
 * cursor first: the cut keeps those, and the page is turned back into list order.
 */
export function cursorPage<T>(rows: T[], q: ListQuery, maxBytes: number): { items: T[]; pagination: Pagination } {
  const p = pageWithin(rows, q.limit, q.offset, maxBytes);
  return q.cursor?.param === 'ending_before' ? { items: p.items.slice().reverse(), pagination: p.pagination } : p;
}

/**
 * A page of a list held in memory, already in list order (a small list such as the chart of
 * accounts): offset or a cursor (an id of the list, else 400) picks the window.
 */
export function pageInMemory<T extends { id: string }>(all: T[], q: ListQuery, maxBytes: number): { items: T[]; pagination: Pagination } {
  if (!q.cursor) return pageWithin(all.slice(q.offset, q.offset + q.limit + 1), q.limit, q.offset, maxBytes);
  const at = all.findIndex((x) => x.id === q.cursor!.id);
  if (at < 0) throw unknownCursor(q.cursor);
  const walked = q.cursor.param === 'starting_after' ? all.slice(at + 1, at + 2 + q.limit) : all.slice(Math.max(0, at - q.limit - 1), at).reverse();
  return cursorPage(walked, q, maxBytes);
}

/**
 * The page conditions of a list read in raw SQL, for a table listed `<time> DESC, id DESC` (the caller
 * checked that the cursor is an item of the list): the created bounds on `time`, the keyset
 * `(time, id) < (cursor's)` (or `>` for ending_before) with the cursor's time read by `cursorTime`
 * (a scalar subquery with one `?` for the cursor's id, so the time keeps Postgres' precision), the
 * order to read in (reversed for ending_before: cursorPage turns it back) and limit + 1 / offset.
 * Fragments use `?` placeholders; `args` are their values in order, then `limit` and `offset`.
 */
export function keysetSql(q: ListQuery, o: { time: string; id?: string; cursorTime: string }): { where: string[]; args: unknown[]; order: string; limit: number; offset: number } {
  const id = o.id ?? 'id';
  const where: string[] = [];
  const args: unknown[] = [];
  for (const b of q.created) {
    where.push(`${o.time} ${b.op} ?::timestamptz`);
    args.push(b.at);
  }
  if (q.cursor) {
    // A row comparison with a constant right side: Postgres seeks the list index to the cursor.
    where.push(`(${o.time}, ${id}) ${keysetOp(q.cursor)} ((${o.cursorTime}), ?::uuid)`);
    args.push(q.cursor.id, q.cursor.id);
  }
  const dir = readOrder(q.cursor) === 'asc' ? 'ASC' : 'DESC';
  return { where, args, order: `${o.time} ${dir}, ${id} ${dir}`, limit: q.limit + 1, offset: q.offset };
}
