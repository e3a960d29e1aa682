import type { Column } from '../../components/list';
import { formatDateTime } from '../../format';
import { anyKind, type Kind } from './kind';
import { MetadataList, RecordLink, StatusBadge, dayCol, money } from './parts';
import type { Customer, Estimate, Invoice, Payment, ProcessorPayout } from './types';

export const created = { label: 'Created', value: (r: { created_at: string }) => r.created_at, render: (r: { created_at: string }) => formatDateTime(r.created_at) };
export const status = { label: 'Status', value: (r: { status: string }) => r.status, render: (r: { status: string }) => <StatusBadge status={r.status} /> };
export const cents = <T,>(label: string, get: (r: T) => number): Column<T> => ({ label, value: (r) => get(r) / 100, render: (r) => money(get(r)), numeric: true });

export const CUSTOMERS: Kind<Customer> = {
  route: '/customers',
  path: '/v1/customers',
  title: 'Customers',
  one: 'Customer',
  searchParam: 'external_customer_id',
  searchLabel: 'External customer id',
  columns: [
    {
      label: 'Name',
      value: (c) => c.name,
      render: (c) => (
        <RecordLink route="/customers" id={c.id}>
          {c.name}
        </RecordLink>
      ),
    },
    { label: 'External id', value: (c) => c.external_customer_id, render: (c) => <code>{c.external_customer_id}</code> },
    { label: 'Email', value: (c) => c.email, render: (c) => c.email ?? '—' },
    created,
  ],
  heading: (c) => `Customer ${c.name}`,
  facts: (c) => [
    ['Name', c.name],
    ['External id', <code>{c.external_customer_id}</code>],
    ['Email', c.email],
    ['Status', <StatusBadge status={c.status} />],
    ['Metadata', <MetadataList metadata={c.metadata} />],
    ['Created', formatDateTime(c.created_at)],
    ['Id', <code>{c.id}</code>],
  ],
  journal: false,
  noJournal: "A customer's journal entries are those of its invoices and payments: open one below.",
  documents: true,
  related: (c) => [
    { title: 'Invoices', kind: anyKind(INVOICES), query: { customer_id: c.id } },
    { title: 'Estimates', kind: anyKind(ESTIMATES), query: { customer_id: c.id } },
  ],
};

export const INVOICES: Kind<Invoice> = {
  route: '/invoices',
  path: '/v1/invoices',
  title: 'Invoices',
  one: 'Invoice',
  searchParam: 'external_invoice_id',
  searchLabel: 'External invoice id',
  statuses: ['draft', 'open', 'partially_paid', 'paid', 'void'],
  columns: [
    {
      label: 'Number',
      value: (i) => i.invoice_number,
      render: (i) => (
        <RecordLink route="/invoices" id={i.id}>
          {i.invoice_number}
        </RecordLink>
      ),
    },
    { label: 'Customer', value: (i) => i.customer_id, render: (i) => <RecordLink route="/customers" id={i.customer_id} what="Customer" /> },
    dayCol('Issued', (i: Invoice) => i.issue_date),
    dayCol('Due', (i: Invoice) => i.due_date),
    status,
    cents('Total', (i: Invoice) => i.total_cents),
    cents('Balance due', (i: Invoice) => i.balance_due_cents),
  ],
  heading: (i) => `Invoice ${i.invoice_number}`,
  facts: (i) => [
    ['Status', <StatusBadge status={i.status} />],
    ['Customer', <RecordLink route="/customers" id={i.customer_id} what="Customer" />],
    ['External id', <code>{i.external_invoice_id}</code>],
    ['Issued', i.issue_date],
    ['Due', i.due_date],
    ['Total', <span class="num">{money(i.total_cents, i.currency)}</span>],
    ['Paid', <span class="num">{money(i.amount_paid_cents, i.currency)}</span>],
    ['Balance due', <span class="num">{money(i.balance_due_cents, i.currency)}</span>],
    ['From estimate', i.estimate_id ? <RecordLink route="/estimates" id={i.estimate_id} what="Estimate" /> : '—'],
    ['Memo', i.memo ?? '—'],
    ['Metadata', <MetadataList metadata={i.metadata} />],
    ['Created', formatDateTime(i.created_at)],
    ['Id', <code>{i.id}</code>],
  ],
  lines: (i) => ({ items: i.line_items, currency: i.currency }),
  journal: true,
  documents: true,
  related: (i) => [{ title: 'Payments', kind: anyKind(PAYMENTS), query: { invoice_id: i.id } }],
};

export const ESTIMATES: Kind<Estimate> = {
  route: '/estimates',
  path: '/v1/estimates',
  title: 'Estimates',
  one: 'Estimate',
  searchParam: 'external_estimate_id',
  searchLabel: 'External estimate id',
  statuses: ['draft', 'sent', 'accepted', 'declined', 'expired', 'converted'],
  columns: [
    {
      label: 'External id',
      value: (e) => e.external_estimate_id,
      render: (e) => (
        <RecordLink route="/estimates" id={e.id}>
          {e.external_estimate_id}
        </RecordLink>
      ),
    },
    { label: 'Customer', value: (e) => e.customer_id, render: (e) => <RecordLink route="/customers" id={e.customer_id} what="Customer" /> },
    dayCol('Issued', (e: Estimate) => e.issue_date),
    dayCol('Expires', (e: Estimate) => e.expiry_date),
    status,
    cents('Total', (e: Estimate) => e.total_cents),
  ],
  heading: (e) => `Estimate ${e.external_estimate_id}`,
  facts: (e) => [
    ['Status', <StatusBadge status={e.status} />],
    ['Customer', <RecordLink route="/customers" id={e.customer_id} what="Customer" />],
    ['External id', <code>{e.external_estimate_id}</code>],
    ['Issued', e.issue_date],
    ['Expires', e.expiry_date ?? '—'],
    ['Total', <span class="num">{money(e.total_cents, e.currency)}</span>],
    ['Invoice', e.invoice_id ? <RecordLink route="/invoices" id={e.invoice_id} what="Invoice" /> : '—'],
    ['Memo', e.memo ?? '—'],
    ['Metadata', <MetadataList metadata={e.metadata} />],
    ['Created', formatDateTime(e.created_at)],
    ['Id', <code>{e.id}</code>],
  ],
  lines: (e) => ({ items: e.line_items, currency: e.currency }),
  journal: false,
  noJournal: 'An estimate does not post to the ledger; the invoice it becomes does.',
  documents: true,
};

export const PAYMENTS: Kind<Payment> = {
  route: '/payments',
  path: '/v1/payments',
  title: 'Payments',
  one: 'Payment',
  searchParam: 'external_payment_id',
  searchLabel: 'External payment id',
  columns: [
    {
      label: 'External id',
      value: (p) => p.external_payment_id,
      render: (p) => (
        <RecordLink route="/payments" id={p.id}>
          {p.external_payment_id}
        </RecordLink>
      ),
    },
    { label: 'Invoice', value: (p) => p.invoice_id, render: (p) => <RecordLink route="/invoices" id={p.invoice_id} what="Invoice" /> },
    dayCol('Received', (p: Payment) => p.received_date),
    { label: 'Source', value: (p) => p.processor ?? p.source },
    status,
    cents('Amount', (p: Payment) => p.amount_cents),
  ],
  heading: (p) => `Payment ${p.external_payment_id}`,
  facts: (p) => [
    ['Status', <StatusBadge status={p.status} />],
    ['Invoice', <RecordLink route="/invoices" id={p.invoice_id} what="Invoice" />],
    ['External id', <code>{p.external_payment_id}</code>],
    ['Amount', <span class="num">{money(p.amount_cents, p.currency)}</span>],
    ['Received', p.received_date],
    ['Source', p.processor ? `${p.source} (${p.processor})` : p.source],
    ['Inbound event', p.event_id ? <code>{p.event_id}</code> : '—'],
    ['Metadata', <MetadataList metadata={p.metadata} />],
    ['Created', formatDateTime(p.created_at)],
    ['Id', <code>{p.id}</code>],
  ],
  journal: true,
  documents: false,
};

export const PAYOUTS: Kind<ProcessorPayout> = {
  route: '/processor-payouts',
  path: '/v1/processor-payouts',
  title: 'Processor payouts',
  one: 'Processor payout',
  searchParam: 'external_payout_id',
  searchLabel: 'External payout id',
  columns: [
    {
      label: 'External id',
      value: (p) => p.external_payout_id,
      render: (p) => (
        <RecordLink route="/processor-payouts" id={p.id}>
          {p.external_payout_id}
        </RecordLink>
      ),
    },
    { label: 'Processor', value: (p) => p.processor },
    dayCol('Paid out', (p: ProcessorPayout) => p.payout_date),
    cents('Gross', (p: ProcessorPayout) => p.gross_cents),
    cents('Fee', (p: ProcessorPayout) => p.fee_cents),
    cents('Net', (p: ProcessorPayout) => p.net_cents),
  ],
  heading: (p) => `Processor payout ${p.external_payout_id}`,
  facts: (p) => [
    ['Status', <StatusBadge status={p.status} />],
    ['Processor', p.processor],
    ['External id', <code>{p.external_payout_id}</code>],
    ['Paid out', p.payout_date],
    ['Gross', <span class="num">{money(p.gross_cents, p.currency)}</span>],
    ['Fee', <span class="num">{money(p.fee_cents, p.currency)}</span>],
    ['Net', <span class="num">{money(p.net_cents, p.currency)}</span>],
    ['Metadata', <MetadataList metadata={p.metadata} />],
    ['Created', formatDateTime(p.created_at)],
    ['Id', <code>{p.id}</code>],
  ],
  journal: true,
  documents: false,
};
