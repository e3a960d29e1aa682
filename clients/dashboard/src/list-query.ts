import type { Query } from './api/client';

/** The filters of a list page (API-DECISIONS §11): an external id, a created range, a cursor. */
export interface ListFilters {
  search: string;
  /** YYYY-MM-DD, inclusive. */
  from: string;
  /** YYYY-MM-DD, inclusive. */
  to: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The day after a YYYY-MM-DD date (UTC), for an inclusive "to" sent as `created[lt]`. */
export function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** The query of one page: the filters that are set, the limit, and the cursor when not the first page. */
export function listQuery(filters: ListFilters, searchParam: string | undefined, cursor: string | null, limit: number, extra: Query = {}): Query {
  const q: Query = { ...extra, limit };
  const search = filters.search.trim();
  if (searchParam && search) q[searchParam] = search;
  if (DAY.test(filters.from)) q['created[gte]'] = filters.from;
  if (DAY.test(filters.to)) q['created[lt]'] = nextDay(filters.to);
  if (cursor) q.starting_after = cursor;
  return q;
}
