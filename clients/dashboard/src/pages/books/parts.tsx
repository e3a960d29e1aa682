import { Fragment, type ComponentChildren } from 'preact';
import type { Column } from '../../components/list';
import { downloadCsv } from '../../csv';
import { formatCents } from '../../format';
import { href } from '../../paths';
import { shortId, statusText } from './shaping';
import type { LineItem } from './types';
import './books.css';

/** A status as a badge whose colour says good (paid, processed), waiting (open, draft) or bad (failed, void). */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge status-${status}`}>{statusText(status)}</span>;
}

/** An amount: integer cents as `1,234.56`, the currency when given. */
export const money = (cents: number | null | undefined, currency?: string) => formatCents(cents, currency);

/** A link to a record's page: `/dashboard/invoices/<id>`, named by its text or `<what> <short id>`. */
export function RecordLink({ route, id, children, what }: { route: string; id: string | null | undefined; children?: ComponentChildren; what?: string }) {
  if (!id) return <>—</>;
  return <a href={href(`${route}/${encodeURIComponent(id)}`)}>{children ?? `${what ?? 'Record'} ${shortId(id)}`}</a>;
}

/** A date column: a `<time>` that does not break at its hyphens. */
export const dayCol = <T,>(label: string, get: (r: T) => string | null | undefined): Column<T> => ({
  label,
  value: (r) => get(r) ?? '',
  render: (r) => {
    const d = get(r);
    return d ? (
      <time class="day" dateTime={d}>
        {d}
      </time>
    ) : (
      '—'
    );
  },
});

/** A record's facts as a description list. */
export function Facts({ rows }: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {rows.map(([label, value]) => (
        <Fragment key={label}>
          <dt>{label}</dt>
          <dd>{value ?? '—'}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

/** A metadata object as facts, or a dash. */
export function MetadataList({ metadata }: { metadata: Record<string, string> }) {
  const keys = Object.keys(metadata);
  if (keys.length === 0) return <>—</>;
  return (
    <ul class="plain-list">
      {keys.map((k) => (
        <li key={k}>
          <code>{k}</code>: {metadata[k]}
        </li>
      ))}
    </ul>
  );
}

const LINE_COLUMNS: Column<LineItem & { id: string }>[] = [
  { label: 'Description', value: (l) => l.description },
  { label: 'Quantity', value: (l) => l.quantity, numeric: true },
  { label: 'Unit amount', value: (l) => l.unit_amount_cents / 100, render: (l) => money(l.unit_amount_cents), numeric: true },
  { label: 'Amount', value: (l) => l.amount_cents / 100, render: (l) => money(l.amount_cents), numeric: true },
];

/** A document's line items, with their total in the footer. */
export function LineItems({ title, items, currency }: { title: string; items: LineItem[]; currency: string }) {
  const rows = items.map((l, i) => ({ ...l, id: String(i) }));
  const total = items.reduce((s, l) => s + l.amount_cents, 0);
  return <StaticTable title={title} columns={LINE_COLUMNS} rows={rows} foot={['Total', '', '', money(total, currency)]} />;
}

/**
 * A table of rows already loaded (a report, line items): scrolling sideways inside its own labelled
 * region, an optional footer row of totals, and a CSV download of the same columns.
 */
export function StaticTable<T extends { id: string }>(props: { title: string; columns: Column<T>[]; rows: T[]; foot?: ComponentChildren[]; empty?: string; csv?: boolean }) {
  if (props.rows.length === 0) return <p class="empty">{props.empty ?? 'Nothing to show.'}</p>;
  const download = () =>
    downloadCsv(
      props.title,
      props.columns.map((c) => c.label),
      props.rows.map((r) => props.columns.map((c) => c.value(r))),
    );
  return (
    <>
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
              </tr>
            ))}
          </tbody>
          {props.foot ? <Foot cells={props.foot} columns={props.columns} /> : null}
        </table>
      </div>
      {props.csv === false ? null : (
        <p class="table-actions">
          <button type="button" class="secondary" onClick={download}>
            Download CSV<span class="visually-hidden"> of {props.title.toLowerCase()}</span>
          </button>
        </p>
      )}
    </>
  );
}

function Foot<T>({ cells, columns }: { cells: ComponentChildren[]; columns: Column<T>[] }) {
  return (
    <tfoot>
      <tr>
        {cells.map((cell, i) =>
          i === 0 ? (
            <th scope="row" key={i}>
              {cell}
            </th>
          ) : (
            <td class={columns[i]?.numeric ? 'num' : undefined} key={i}>
              {cell}
            </td>
          ),
        )}
      </tr>
    </tfoot>
  );
}

/** A select of a list's statuses; "" is every status. */
export function StatusFilter({ id, label, statuses, value, onChange }: { id: string; label: string; statuses: readonly string[]; value: string; onChange: (v: string) => void }) {
  return (
    <div class="field status-filter">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">Any</option>
        {statuses.map((s) => (
          <option value={s} key={s}>
            {statusText(s)}
          </option>
        ))}
      </select>
    </div>
  );
}
