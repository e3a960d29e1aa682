/**
 * The cases of declared-params.e2e.test.ts: for a list, what to send for one query parameter given
 * the whole list (every item of the seeded data set, in list order), and which items must then be
 * on the page and which must not. A case refuses a data set where its parameter would exclude
 * nothing or keep nothing, so a filter that does nothing cannot pass.
 */
import { type Api, expectStatus } from './receivables.helpers';

export type Item = Record<string, unknown> & { id: string };
/** true: the item must be on the page; false: it must not; undefined: either (not decided by the data). */
export type Verdict = boolean | undefined;
export interface Sent {
  value: string;
  keep(item: Item, index: number): Verdict;
}
/** A list parameter's case: its value and verdicts, chosen from the whole list. */
export type ListCase = (all: Item[]) => Sent;

/** The default page size (API-DECISIONS §3): items past it are not decided by offset or a cursor. */
const PAGE = 25;

/** limit, offset and the two cursors, on any list of at least three items. */
export const page: Record<'limit' | 'offset' | 'starting_after' | 'ending_before', ListCase> = {
  limit: () => ({ value: '2', keep: (_x, i) => i < 2 }),
  offset: () => ({ value: '1', keep: (_x, i) => (i === 0 ? false : i <= PAGE ? true : undefined) }),
  starting_after: (all) => ({ value: all[1]!.id, keep: (_x, i) => (i <= 1 ? false : i <= PAGE + 1 ? true : undefined) }),
  ending_before: (all) => {
    const last = all.length - 1;
    return { value: all[last]!.id, keep: (_x, i) => (i === last ? false : i >= last - PAGE ? true : undefined) };
  },
};

/** A field's value as a query sends it: strings as they are, booleans and numbers as JSON writes them. */
const text = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v));

/** An exact-match filter on `field`: a value some items have and some do not. */
export const eq =
  (field: string): ListCase =>
  (all) => {
    const values = all.map((x) => text(x[field]));
    const value = values.find((v): v is string => v !== null && values.some((w) => w !== v));
    if (value === undefined) throw new Error(`no value of ${field} tells the seeded items apart: ${JSON.stringify(values)}`);
    return { value, keep: (x) => text(x[field]) === value };
  };

/** A bound on a date field (YYYY-MM-DD, compared as text): `from` keeps field ≥ value, `to` field ≤ value. */
export const dateBound =
  (field: string, side: 'from' | 'to'): ListCase =>
  (all) => {
    const dates = [...new Set(all.map((x) => String(x[field])))].sort();
    if (dates.length < 2) throw new Error(`the seeded items have one ${field}: ${dates.join()}`);
    const value = side === 'from' ? dates[dates.length - 1]! : dates[0]!;
    return { value, keep: (x) => (side === 'from' ? String(x[field]) >= value : String(x[field]) <= value) };
  };

/**
 * How far an item's stored time may be from the one its JSON shows (milliseconds, truncated or
 * rounded from Postgres' microseconds): an item is decided only when its whole interval is.
 */
const SLACK_MS = 1;
type Op = 'gte' | 'gt' | 'lte' | 'lt';
function verdict(op: Op, shown: number, bound: number): Verdict {
  const [lo, hi] = [shown - SLACK_MS, shown + SLACK_MS];
  const passes = (t: number) => (op === 'gte' ? t >= bound : op === 'gt' ? t > bound : op === 'lte' ? t <= bound : t < bound);
  return passes(lo) && passes(hi) ? true : !passes(lo) && !passes(hi) ? false : undefined;
}

/**
 * `created[op]` on the time `field` the items show (created_at; posted_at for journal entries): the
 * bound lies strictly between two distinct shown times (records made in a row), so the items before
 * and after it are decided; records that share a time fall on the same side.
 */
export const createdBound =
  (op: Op, field = 'created_at'): ListCase =>
  (all) => {
    const times = all.map((x) => {
      if (typeof x[field] !== 'string') throw new Error(`the items carry no ${field}: created[${op}] has no time of theirs to compare`);
      return Date.parse(x[field]);
    });
    const distinct = [...new Set(times)].sort((a, b) => a - b);
    for (let k = 1; k < distinct.length; k++) {
      const bound = Math.floor((distinct[k - 1]! + distinct[k]!) / 2);
      const v = times.map((t) => verdict(op, t, bound));
      if (v.includes(true) && v.includes(false)) return { value: new Date(bound).toISOString(), keep: (_x, i) => v[i] };
    }
    throw new Error(`no bound between the items' ${field} values decides items on both sides: ${distinct.map((t) => new Date(t).toISOString()).join(', ')}`);
  };

/** The four created bounds on `field`. */
export const created = (field = 'created_at'): Record<`created[${Op}]`, ListCase> => ({
  'created[gte]': createdBound('gte', field),
  'created[gt]': createdBound('gt', field),
  'created[lte]': createdBound('lte', field),
  'created[lt]': createdBound('lt', field),
});

/** Every item of a list (one page of 100: the seeded set is smaller), in list order. */
export async function wholeList(api: Api, path: string): Promise<Item[]> {
  const r = await api('GET', `${path}?limit=100`);
  expectStatus(r, 200);
  expect(r.json.pagination.has_more).toBe(false);
  return r.json.data as Item[];
}

/**
 * Sends `param` with the case's value and checks the page: every item the case keeps is on it, no
 * item it leaves out is, and nothing else is. At least one item of each kind, else the data set
 * proves nothing.
 */
export async function checkListCase(api: Api, path: string, all: Item[], param: string, c: ListCase): Promise<void> {
  const sent = c(all);
  const verdicts = all.map((x, i) => sent.keep(x, i));
  const kept = all.filter((_x, i) => verdicts[i] === true).map((x) => x.id);
  const excluded = all.filter((_x, i) => verdicts[i] === false).map((x) => x.id);
  expect({ param, value: sent.value, kept: kept.length > 0, excluded: excluded.length > 0 }).toEqual({ param, value: sent.value, kept: true, excluded: true });
  const r = await api('GET', `${path}?${encodeURIComponent(param)}=${encodeURIComponent(sent.value)}`);
  expectStatus(r, 200);
  const got = new Set((r.json.data as Item[]).map((x) => x.id));
  const known = new Set(all.map((x) => x.id));
  expect({
    param,
    value: sent.value,
    missing: kept.filter((id) => !got.has(id)),
    notExcluded: excluded.filter((id) => got.has(id)),
    unknown: [...got].filter((id) => !known.has(id)),
  }).toEqual({ param, value: sent.value, missing: [], notExcluded: [], unknown: [] });
}
