import { api, type ListAnswer } from '../../api/client';
import { ErrorNote, Loading } from '../../components/ui';
import type { Loaded } from '../../hooks';
import { useLoad } from '../../hooks';
import { href } from '../../paths';
import { EVENT_COLUMNS } from './events';
import { money, StaticTable } from './parts';
import { Tiles, MoneyChart, monthlyRevenue } from './report-parts';
import { AGING_BUCKETS, agingSeries, cashPosition, lastMonths } from './shaping';
import type { Account, InboundEvent, PayableReport, ReceivableReport } from './types';
import type { ComponentChildren, ComponentProps } from 'preact';

/** A panel of the overview that loads on its own: one failing read leaves the others standing. */
function Panel<T>({ id, title, loaded, children, more }: { id: string; title: string; loaded: Loaded<T>; children: (d: T) => ComponentChildren; more?: [string, string] }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {loaded.loading && loaded.data === undefined ? <Loading what={title.toLowerCase()} /> : null}
      <ErrorNote error={loaded.error} />
      {loaded.data !== undefined && !loaded.error ? children(loaded.data) : null}
      {more ? (
        <p>
          <a href={href(more[0])}>{more[1]}</a>
        </p>
      ) : null}
    </section>
  );
}

/** A panel's totals as tiles over a bar chart of the same money. */
function TilesAndBars({ tiles, ...chart }: { tiles: [string, ComponentChildren][] } & Omit<ComponentProps<typeof MoneyChart>, 'type'>) {
  return (
    <>
      <Tiles items={tiles} />
      <MoneyChart type="bar" {...chart} />
    </>
  );
}

function Revenue() {
  const loaded = useLoad(() => monthlyRevenue(lastMonths(new Date())), []);
  return (
    <Panel id="ov-revenue" title="Revenue by month" loaded={loaded} more={['/reports/summary', 'Summary report']}>
      {(m) => (
        <MoneyChart
          empty="No revenue in the last 12 months."
          title="Revenue by month, last 12 months"
          type="bar"
          labels={m.labels}
          series={[{ label: 'Revenue', data: m.revenue }]}
        />
      )}
    </Panel>
  );
}

function Aging() {
  const loaded = useLoad(
    () =>
      Promise.all([api.get<{ data: ReceivableReport }>('/v1/reports/accounts-receivable'), api.get<{ data: PayableReport }>('/v1/reports/accounts-payable')]).then(([ar, ap]) => ({
        ar: ar.data,
        ap: ap.data,
      })),
    [],
  );
  return (
    <Panel id="ov-aging" title="Receivable and payable aging" loaded={loaded} more={['/reports/receivable', 'Aging by customer and vendor']}>
      {({ ar, ap }) => (
        <TilesAndBars
          tiles={[
            ['Receivable', money(ar.total_open_cents)],
            ['Payable', money(ap.total_open_cents)],
          ]}
          empty="Nothing is open: no receivable or payable to age."
          title={`Aging as of ${ar.as_of}`}
          labels={AGING_BUCKETS.map((b) => b.label)}
          series={[
            { label: 'Receivable', data: agingSeries(ar.aging) },
            { label: 'Payable', data: agingSeries(ap.aging) },
          ]}
        />
      )}
    </Panel>
  );
}

function Cash() {
  const loaded = useLoad(() => api.get<ListAnswer<Account>>('/v1/accounts', { limit: 100 }).then((a) => cashPosition(a.data)), []);
  return (
    <Panel id="ov-cash" title="Cash" loaded={loaded} more={['/reports/trial-balance', 'Trial balance']}>
      {(cash) => (
        <TilesAndBars
          tiles={[
            ['Cash and bank', money(cash.onHandCents)],
            ['In transit from processors', money(cash.inTransitCents)],
          ]}
          empty="Every money account is at 0.00."
          title="Balance of each money account"
          labels={cash.accounts.map((a) => `${a.code} ${a.name}`)}
          series={[{ label: 'Balance', data: cash.accounts.map((a) => a.balance_cents) }]}
        />
      )}
    </Panel>
  );
}

function RecentEvents() {
  const loaded = useLoad(() => api.get<ListAnswer<InboundEvent>>('/v1/events', { limit: 10 }), []);
  const columns = EVENT_COLUMNS.filter((c) => ['Received', 'Type', 'Status'].includes(c.label));
  return (
    <Panel id="ov-events" title="Recent inbound events" loaded={loaded} more={['/events', 'Every inbound event']}>
      {(page) => <StaticTable title="The 10 newest inbound events" columns={columns} rows={page.data} empty="No inbound event yet." csv={false} />}
    </Panel>
  );
}

/** The books at a glance (API-DECISIONS §13): revenue by month, aging, cash and the newest events. */
export function BooksOverview() {
  return (
    <div class="overview-grid">
      <Revenue />
      <Aging />
      <Cash />
      <RecentEvents />
    </div>
  );
}
