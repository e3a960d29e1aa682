import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import type { Column } from '../../components/list';
import { Field } from '../../components/ui';
import { formatDate } from '../../format';
import { useLoad } from '../../hooks';
import { money, RecordLink, StaticTable } from './parts';
import { ReportForm, ReportState, Tiles, MoneyChart } from './report-parts';
import { AGING_BUCKETS, agingSeries, isDay, partyRows, shortId, todayUtc } from './shaping';
import type { PartyAging, PayableReport, ReceivableReport } from './types';

interface Side {
  /** `receivable` | `payable` */
  key: string;
  title: string;
  path: string;
  party: string;
  route: string;
}

export const RECEIVABLE: Side = { key: 'receivable', title: 'Accounts receivable', path: '/v1/reports/accounts-receivable', party: 'Customer', route: '/customers' };
export const PAYABLE: Side = { key: 'payable', title: 'Accounts payable', path: '/v1/reports/accounts-payable', party: 'Vendor', route: '/vendors' };

interface Shaped {
  as_of: string;
  total: number;
  count: number;
  aging: number[];
  rows: PartyAging[];
}

function shape(data: ReceivableReport | PayableReport): Shaped {
  const rows = 'customers' in data ? partyRows(data.customers, (c) => c.customer_id) : partyRows(data.vendors, (v) => v.vendor_id);
  const count = 'customer_count' in data ? data.customer_count : data.vendor_count;
  return { as_of: data.as_of, total: data.total_open_cents, count, aging: agingSeries(data.aging), rows };
}

function columns(side: Side): Column<PartyAging>[] {
  return [
    {
      label: side.party,
      value: (r) => r.display_name ?? r.id,
      render: (r) => (
        <RecordLink route={side.route} id={r.id}>
          {r.display_name ?? `${side.party} ${shortId(r.id)}`}
        </RecordLink>
      ),
    },
    ...AGING_BUCKETS.map((b) => ({ label: b.label, value: (r: PartyAging) => r.aging[b.key] / 100, render: (r: PartyAging) => money(r.aging[b.key]), numeric: true })),
    { label: 'Open', value: (r) => r.open_cents / 100, render: (r) => money(r.open_cents), numeric: true },
  ];
}

/** A/R or A/P as of a date: the total, the aging buckets as a chart, and each party's balance by bucket. */
export function AgingReport({ side }: { side: Side }) {
  const [draft, setDraft] = useState(todayUtc());
  const [asOf, setAsOf] = useState(todayUtc());
  const loaded = useLoad(() => api.get<{ data: ReceivableReport | PayableReport }>(side.path, { as_of: asOf }), [side.path, asOf]);
  return (
    <section aria-labelledby={`${side.key}-title`}>
      <h2 id={`${side.key}-title`}>{side.title}</h2>
      <ReportForm label={`${side.title} date`} onSubmit={() => isDay(draft) && setAsOf(draft)}>
        <Field label="As of" id={`${side.key}-as-of`} type="date" required value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
      </ReportForm>
      <ReportState loaded={loaded} what={side.title.toLowerCase()}>
        {(answer) => <AgingBody side={side} r={shape(answer.data)} />}
      </ReportState>
    </section>
  );
}

function AgingBody({ side, r }: { side: Side; r: Shaped }) {
  const cols = columns(side);
  const foot = ['Total', ...r.aging.map((c) => money(c)), money(r.total)];
  return (
    <>
      <Tiles
        items={[
          ['Open balance', money(r.total)],
          [`${side.party}s with a balance`, r.count],
          ['As of', formatDate(r.as_of)],
        ]}
      />
      <MoneyChart
        empty="Nothing is open on this date."
        title={`${side.title} aging as of ${r.as_of}`}
        type="bar"
        labels={AGING_BUCKETS.map((b) => b.label)}
        series={[{ label: 'Open', data: r.aging }]}
      />
      <StaticTable
        title={`${side.title} by ${side.party.toLowerCase()} as of ${r.as_of}`}
        columns={cols}
        rows={r.rows}
        foot={foot}
        empty={`No ${side.party.toLowerCase()} has an open balance.`}
      />
    </>
  );
}
