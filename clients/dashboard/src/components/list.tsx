import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, type ListAnswer, type Query } from '../api/client';
import { downloadCsv, type CsvValue } from '../csv';
import { useAction, useLoad } from '../hooks';
import { listQuery, type ListFilters } from '../list-query';
import { ErrorNote, Loading } from './ui';

export interface Column<T> {
  label: string;
  /** The cell's value, also its CSV value. */
  value: (row: T) => CsvValue;
  /** How the cell shows, when not its value as text. */
  render?: (row: T) => ComponentChildren;
  /** Right-aligned (amounts). */
  numeric?: boolean;
}

export interface ListProps<T extends { id: string }> {
  /** The table's caption and the CSV file's name. */
  title: string;
  /** The list's API path, e.g. `/v1/customers` or `/members`. */
  path: string;
  columns: Column<T>[];
  /** The exact-match external id filter of the list, when it has one (e.g. `external_customer_id`). */
  searchParam?: string;
  searchLabel?: string;
  /** Filter by created date (every public list has it; off for dashboard-only lists). */
  createdFilter?: boolean;
  /** More query parameters, always sent. */
  query?: Query;
  /** A cell of buttons per row. */
  actions?: (row: T, reload: () => void) => ComponentChildren;
  empty?: string;
  /** Changing it reloads the list (after a create elsewhere on the page). */
  reloadKey?: unknown;
}

const PAGE = 25;
/** CSV download reads every page of the filtered list, up to this many rows. */
const CSV_MAX_ROWS = 10_000;

const NO_FILTERS: ListFilters = { search: '', from: '', to: '' };

/**
 * A list answer as a table: filters (external id, created range), cursor pagination over
 * `starting_after` (Previous goes back through the cursors already seen), and CSV download.
 */
export function List<T extends { id: string }>(props: ListProps<T>) {
  const [draft, setDraft] = useState<ListFilters>(NO_FILTERS);
  const [filters, setFilters] = useState<ListFilters>(NO_FILTERS);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const page = useLoad(
    () => api.get<ListAnswer<T>>(props.path, listQuery(filters, props.searchParam, cursor, PAGE, props.query)),
    [props.path, filters, cursor, props.reloadKey, JSON.stringify(props.query ?? {})],
  );
  const csv = useAction();

  const apply = (next: ListFilters) => {
    setFilters(next);
    setCursors([null]);
  };
  const download = () => csv.run(() => downloadAll(props, filters));
  const rows = page.data?.data ?? [];
  return (
    <div class="list">
      <Filters props={props} draft={draft} setDraft={setDraft} apply={apply} />
      {page.error ? <ErrorNote error={page.error} /> : null}
      {page.loading && !page.data ? <Loading what={props.title.toLowerCase()} /> : <Table props={props} rows={rows} reload={page.reload} />}
      <div class="list-foot">
        <nav class="pager" aria-label={`${props.title} pages`}>
          <button type="button" class="secondary" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
            Previous
          </button>
          <span aria-live="polite">Page {cursors.length}</span>
          <button
            type="button"
            class="secondary"
            disabled={!page.data?.pagination.has_more || rows.length === 0}
            onClick={() => setCursors((c) => [...c, rows[rows.length - 1]!.id])}
          >
            Next
          </button>
        </nav>
        <button type="button" class="secondary" onClick={() => void download()} disabled={csv.busy}>
          {csv.busy ? 'Preparing CSV…' : 'Download CSV'}
        </button>
      </div>
      {csv.error ? <ErrorNote error={csv.error} /> : null}
    </div>
  );
}

function Filters<T extends { id: string }>({
  props,
  draft,
  setDraft,
  apply,
}: {
  props: ListProps<T>;
  draft: ListFilters;
  setDraft: (f: ListFilters) => void;
  apply: (f: ListFilters) => void;
}) {
  const created = props.createdFilter ?? true;
  if (!props.searchParam && !created) return null;
  const id = props.path.replace(/[^a-z0-9]+/gi, '-');
  return (
    <form
      class="filters"
      role="search"
      aria-label={`Filter ${props.title.toLowerCase()}`}
      onSubmit={(e) => {
        e.preventDefault();
        apply(draft);
      }}
    >
      {props.searchParam ? (
        <div class="field">
          <label for={`${id}-search`}>{props.searchLabel ?? 'External id'}</label>
          <input id={`${id}-search`} type="search" value={draft.search} onInput={(e) => setDraft({ ...draft, search: e.currentTarget.value })} />
        </div>
      ) : null}
      {created ? (
        <>
          <div class="field">
            <label for={`${id}-from`}>Created from</label>
            <input id={`${id}-from`} type="date" value={draft.from} onInput={(e) => setDraft({ ...draft, from: e.currentTarget.value })} />
          </div>
          <div class="field">
            <label for={`${id}-to`}>Created to</label>
            <input id={`${id}-to`} type="date" value={draft.to} onInput={(e) => setDraft({ ...draft, to: e.currentTarget.value })} />
          </div>
        </>
      ) : null}
      <div class="filter-buttons">
        <button type="submit">Apply</button>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setDraft(NO_FILTERS);
            apply(NO_FILTERS);
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}

function Table<T extends { id: string }>({ props, rows, reload }: { props: ListProps<T>; rows: T[]; reload: () => void }) {
  if (rows.length === 0) return <p class="empty">{props.empty ?? `No ${props.title.toLowerCase()} yet.`}</p>;
  const actions = props.actions;
  return <DataTable title={props.title} columns={props.columns} rows={rows} actions={actions ? (row) => actions(row, reload) : undefined} />;
}

/**
 * The table of a list or report, scrolling sideways inside its own labelled region: one column per
 * `columns`, an actions cell per row when `actions` is given, and `foot` (a `<tfoot>`) after the body.
 */
export function DataTable<T extends { id: string }>(props: { title: string; columns: Column<T>[]; rows: T[]; actions?: (row: T) => ComponentChildren; foot?: ComponentChildren }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={props.title}>
      <table>
        <caption class="visually-hidden">{props.title}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th scope="col" class={c.numeric ? 'num' : undefined} key={c.label}>
                {c.label}
              </th>
            ))}
            {props.actions ? (
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={row.id}>
              {props.columns.map((c) => (
                <td class={c.numeric ? 'num' : undefined} key={c.label}>
                  {c.render ? c.render(row) : String(c.value(row) ?? '')}
                </td>
              ))}
              {props.actions ? <td class="actions">{props.actions(row)}</td> : null}
            </tr>
          ))}
        </tbody>
        {props.foot}
      </table>
    </div>
  );
}

/** Every page of the filtered list (100 at a time), then one CSV of the columns. */
async function downloadAll<T extends { id: string }>(props: ListProps<T>, filters: ListFilters): Promise<void> {
  const all: T[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page: ListAnswer<T> = await api.get<ListAnswer<T>>(props.path, listQuery(filters, props.searchParam, cursor, 100, props.query));
    all.push(...page.data);
    if (!page.pagination.has_more || page.data.length === 0 || all.length >= CSV_MAX_ROWS) break;
    cursor = page.data[page.data.length - 1]!.id;
  }
  downloadCsv(
    props.title,
    props.columns.map((c) => c.label),
    all.map((row) => props.columns.map((c) => c.value(row))),
  );
}
