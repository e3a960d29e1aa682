import { useState } from 'preact/hooks';
import { List, type Column } from '../../components/list';
import { PageTitle } from '../../components/ui';
import { formatDateTime } from '../../format';
import { RecordLink, StatusBadge, StatusFilter } from './parts';
import type { InboundEvent } from './types';

const detailsText = (e: InboundEvent) => (e.details ?? []).map((d) => [d.field, d.message ?? d.issue].filter(Boolean).join(': ')).join('; ');

export const EVENT_COLUMNS: Column<InboundEvent>[] = [
  { label: 'Received', value: (e) => e.created_at, render: (e) => formatDateTime(e.created_at) },
  { label: 'Type', value: (e) => e.event_type, render: (e) => <code>{e.event_type}</code> },
  { label: 'External id', value: (e) => e.external_event_id ?? '', render: (e) => (e.external_event_id ? <code>{e.external_event_id}</code> : '—') },
  { label: 'Source', value: (e) => e.source ?? '' },
  { label: 'Status', value: (e) => e.status, render: (e) => <StatusBadge status={e.status} /> },
  { label: 'Payment', value: (e) => e.payment_id ?? '', render: (e) => <RecordLink route="/payments" id={e.payment_id} what="Payment" /> },
  { label: 'Details', value: detailsText, render: (e) => detailsText(e) || '—' },
];

const STATUSES = ['processed', 'stored', 'failed'] as const;
const SOURCES = ['api', 'stripe'] as const;

/** Inbound events (POST /events and the payment processor's webhooks) and what became of each. */
export function EventsPage() {
  const [status, setStatus] = useState('');
  const [source, setSource] = useState('');
  return (
    <>
      <PageTitle>Inbound events</PageTitle>
      <p>Events sent to the API or by the payment processor: processed (applied to the books), stored (kept, no ledger effect) or failed (the details say why).</p>
      <div class="filters">
        <StatusFilter id="events-status" label="Status" statuses={STATUSES} value={status} onChange={setStatus} />
        <StatusFilter id="events-source" label="Source" statuses={SOURCES} value={source} onChange={setSource} />
      </div>
      <List<InboundEvent>
        key={`${status}:${source}`}
        title="Inbound events"
        path="/v1/events"
        columns={EVENT_COLUMNS}
        searchParam="external_event_id"
        searchLabel="External event id"
        query={{ status: status || undefined, source: source || undefined }}
        empty="No inbound event."
      />
    </>
  );
}
