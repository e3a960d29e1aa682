import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import type { Column } from '../../components/list';
import { Field } from '../../components/ui';
import { useLoad } from '../../hooks';
import { money, RecordLink, StaticTable } from './parts';
import { ReportForm, ReportState, Tiles, MoneyChart } from './report-parts';
import { shortId, topWithOthers } from './shaping';
import type { Tax1099Report as Report } from './types';

type VendorRow = Report['vendors'][number] & { id: string };
const yes = (b: boolean) => (b ? 'Yes' : 'No');

const COLUMNS: Column<VendorRow>[] = [
  {
    label: 'Vendor',
    value: (v) => v.display_name ?? v.vendor_id,
    render: (v) => (
      <RecordLink route="/vendors" id={v.vendor_id}>
        {v.display_name ?? `Vendor ${shortId(v.vendor_id)}`}
      </RecordLink>
    ),
  },
  { label: '1099 eligible', value: (v) => yes(v.is_1099_eligible) },
  { label: 'W-9 on file', value: (v) => yes(v.w9_on_file) },
  { label: 'Reportable', value: (v) => yes(v.reportable) },
  { label: 'Paid', value: (v) => v.paid_cents / 100, render: (v) => money(v.paid_cents), numeric: true },
];

/** What each vendor was paid in a year, and which of them need a 1099 (API-DECISIONS §8). */
export function Tax1099Report() {
  const thisYear = String(new Date().getUTCFullYear());
  const [draft, setDraft] = useState({ year: thisYear, include: false });
  const [params, setParams] = useState(draft);
  const loaded = useLoad(
    () => api.get<{ data: Report }>('/v1/reports/1099-summary', { year: params.year, include_ineligible: String(params.include) }),
    [params.year, params.include],
  );
  return (
    <section aria-labelledby="tax-title">
      <h2 id="tax-title">1099 summary</h2>
      <ReportForm label="1099 summary year" onSubmit={() => /^\d{4}$/.test(draft.year) && setParams(draft)}>
        <Field
          label="Year"
          id="tax-year"
          inputMode="numeric"
          pattern="[0-9]{4}"
          maxLength={4}
          required
          value={draft.year}
          onInput={(e) => setDraft({ ...draft, year: e.currentTarget.value })}
        />
        <div class="field">
          <label class="inline" for="tax-include">
            <input id="tax-include" type="checkbox" checked={draft.include} onChange={(e) => setDraft({ ...draft, include: e.currentTarget.checked })} />
            Also list vendors that are not 1099-eligible
          </label>
        </div>
      </ReportForm>
      <ReportState loaded={loaded} what="the 1099 summary">
        {({ data: r }) => {
          const rows = r.vendors.map((v) => ({ ...v, id: v.vendor_id }));
          const chart = topWithOthers(
            rows,
            (v) => v.display_name ?? shortId(v.vendor_id),
            (v) => v.paid_cents,
          );
          return (
            <>
              <Tiles
                items={[
                  ['Reportable paid', money(r.total_reportable_paid_cents)],
                  ['Vendors at or over the threshold', r.eligible_vendor_count],
                  ['Of them without a W-9', r.missing_w9_count],
                  [`Threshold ${r.reporting_year}`, money(r.threshold_cents)],
                ]}
              />
              <MoneyChart empty={null} title={`Paid to vendors in ${r.reporting_year}`} type="bar" labels={chart.labels} series={[{ label: 'Paid', data: chart.data }]} />
              <StaticTable title={`1099 summary ${r.reporting_year}`} columns={COLUMNS} rows={rows} empty="No vendor was paid in this year." />
            </>
          );
        }}
      </ReportState>
    </section>
  );
}
