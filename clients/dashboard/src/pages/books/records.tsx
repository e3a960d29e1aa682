import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { List, type Column } from '../../components/list';
import { ErrorNote, Loading, PageTitle } from '../../components/ui';
import { formatDateTime } from '../../format';
import { useAction, useLoad } from '../../hooks';
import { href } from '../../paths';
import { downloadDocument } from './download';
import { EntriesOf } from './entries';
import type { Kind } from './kind';
import { BILLS, VENDORS, VENDOR_PAYMENTS } from './kinds-payables';
import { CUSTOMERS, ESTIMATES, INVOICES, PAYMENTS, PAYOUTS } from './kinds-receivables';
import { Facts, LineItems, StatusBadge, StatusFilter } from './parts';
import type { DocumentRecord } from './types';

/** A kind's list: the external id search, the created range, a status select when the list has one. */
function RecordList<T extends { id: string }>({ kind, intro }: { kind: Kind<T>; intro?: preact.ComponentChildren }) {
  const [status, setStatus] = useState('');
  const id = kind.route.slice(1);
  return (
    <>
      <PageTitle>{kind.title}</PageTitle>
      {intro}
      {kind.statuses ? <StatusFilter id={`${id}-status`} label="Status" statuses={kind.statuses} value={status} onChange={setStatus} /> : null}
      {/* Keyed by the status: a new filter starts from the first page (a cursor of another filter is refused). */}
      <List<T>
        key={status}
        title={kind.title}
        path={kind.path}
        columns={kind.columns}
        searchParam={kind.searchParam}
        searchLabel={kind.searchLabel}
        query={{ status: status || undefined }}
      />
    </>
  );
}

export const CustomersPage = () => <RecordList kind={CUSTOMERS} />;
export const InvoicesPage = () => <RecordList kind={INVOICES} />;
export const EstimatesPage = () => <RecordList kind={ESTIMATES} />;
export const PaymentsPage = () => (
  <RecordList
    kind={PAYMENTS}
    intro={
      <p>
        Money received against invoices. Money paid out by a payment processor is under <a href={href('/processor-payouts')}>processor payouts</a>.
      </p>
    }
  />
);
export const PayoutsPage = () => <RecordList kind={PAYOUTS} />;
export const VendorsPage = () => <RecordList kind={VENDORS} />;
export const BillsPage = () => <RecordList kind={BILLS} />;
export const VendorPaymentsPage = () => <RecordList kind={VENDOR_PAYMENTS} />;

/** One record: its facts, line items, journal entries, documents and related lists. */
function RecordPage<T extends { id: string }>({ kind, id }: { kind: Kind<T>; id: string }) {
  const path = `${kind.path}/${encodeURIComponent(id)}`;
  const record = useLoad(() => api.get<{ data: T }>(path), [path]);
  const r = record.data?.data;
  return (
    <>
      <p>
        <a href={href(kind.route)}>← {kind.title}</a>
      </p>
      <PageTitle>{r ? kind.heading(r) : kind.one}</PageTitle>
      {record.loading && !r ? <Loading what={kind.one.toLowerCase()} /> : null}
      <ErrorNote error={record.error} />
      {r ? <RecordBody kind={kind} r={r} /> : null}
    </>
  );
}

function RecordBody<T extends { id: string }>({ kind, r }: { kind: Kind<T>; r: T }) {
  const lines = kind.lines?.(r);
  return (
    <>
      <Facts rows={kind.facts(r)} />
      {lines ? (
        <section aria-labelledby="lines-title">
          <h2 id="lines-title">Line items</h2>
          <LineItems title="Line items" items={lines.items} currency={lines.currency} />
        </section>
      ) : null}
      {kind.extra?.(r)}
      {kind.journal ? (
        <EntriesOf sourceId={r.id} />
      ) : (
        <section aria-labelledby="entries-title">
          <h2 id="entries-title">Journal entries</h2>
          <p>{kind.noJournal}</p>
        </section>
      )}
      {kind.documents ? <DocumentsOf recordId={r.id} /> : null}
      {(kind.related?.(r) ?? []).map((rel) => (
        <section key={rel.title} aria-labelledby={`rel-${rel.kind.route.slice(1)}`}>
          <h2 id={`rel-${rel.kind.route.slice(1)}`}>{rel.title}</h2>
          <List<{ id: string }> title={rel.title} path={rel.kind.path} columns={rel.kind.columns as Column<{ id: string }>[]} query={rel.query} createdFilter={false} />
        </section>
      ))}
    </>
  );
}

const DOC_COLUMNS: Column<DocumentRecord>[] = [
  { label: 'File', value: (d) => d.file_name, render: (d) => <DownloadButton doc={d} /> },
  { label: 'Type', value: (d) => d.document_type },
  { label: 'Status', value: (d) => d.status, render: (d) => <StatusBadge status={d.status} /> },
  { label: 'Size (bytes)', value: (d) => d.size_bytes, numeric: true },
  { label: 'Uploaded', value: (d) => d.created_at, render: (d) => formatDateTime(d.created_at) },
];

function DownloadButton({ doc }: { doc: DocumentRecord }) {
  const action = useAction();
  return (
    <>
      <button type="button" class="secondary" disabled={action.busy} onClick={() => void action.run(() => downloadDocument(doc.id, doc.file_name))}>
        <span class="visually-hidden">Download </span>
        {doc.file_name}
      </button>
      {action.error ? <ErrorNote error={action.error} /> : null}
    </>
  );
}

/** The documents linked to a record (GET /documents?linked_record_id), each downloadable. */
function DocumentsOf({ recordId }: { recordId: string }) {
  return (
    <section aria-labelledby="documents-title">
      <h2 id="documents-title">Documents</h2>
      <List<DocumentRecord> title="Documents" path="/v1/documents" columns={DOC_COLUMNS} query={{ linked_record_id: recordId }} createdFilter={false} empty="No document linked." />
    </section>
  );
}

type IdProps = { id: string };
export const CustomerPage = ({ id }: IdProps) => <RecordPage kind={CUSTOMERS} id={id} />;
export const InvoicePage = ({ id }: IdProps) => <RecordPage kind={INVOICES} id={id} />;
export const EstimatePage = ({ id }: IdProps) => <RecordPage kind={ESTIMATES} id={id} />;
export const PaymentPage = ({ id }: IdProps) => <RecordPage kind={PAYMENTS} id={id} />;
export const PayoutPage = ({ id }: IdProps) => <RecordPage kind={PAYOUTS} id={id} />;
export const VendorPage = ({ id }: IdProps) => <RecordPage kind={VENDORS} id={id} />;
export const BillPage = ({ id }: IdProps) => <RecordPage kind={BILLS} id={id} />;
export const VendorPaymentPage = ({ id }: IdProps) => <RecordPage kind={VENDOR_PAYMENTS} id={id} />;
