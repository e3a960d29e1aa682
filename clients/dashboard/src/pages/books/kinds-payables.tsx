import type { Column } from '../../components/list';
import { formatDateTime } from '../../format';
import { anyKind, type Kind } from './kind';
import { cents, created, status } from './kinds-receivables';
import { MetadataList, RecordLink, StaticTable, StatusBadge, dayCol, money } from './parts';
import type { Bill, Vendor, VendorPayment } from './types';

export const VENDORS: Kind<Vendor> = {
  route: '/vendors',
  path: '/v1/vendors',
  title: 'Vendors',
  one: 'Vendor',
  searchParam: 'external_vendor_id',
  searchLabel: 'External vendor id',
  columns: [
    {
      label: 'Name',
      value: (v) => v.display_name,
      render: (v) => (
        <RecordLink route="/vendors" id={v.id}>
          {v.display_name}
        </RecordLink>
      ),
    },
    { label: 'External id', value: (v) => v.external_vendor_id, render: (v) => <code>{v.external_vendor_id}</code> },
    { label: 'Type', value: (v) => v.vendor_type },
    { label: '1099', value: (v) => (v.is_1099_eligible ? 'eligible' : 'no') },
    { label: 'W-9', value: (v) => (v.w9_on_file ? 'on file' : 'missing') },
    created,
  ],
  heading: (v) => `Vendor ${v.display_name}`,
  facts: (v) => [
    ['Name', v.display_name],
    ['External id', <code>{v.external_vendor_id}</code>],
    ['Type', v.vendor_type],
    ['Email', v.email],
    ['1099 eligible', v.is_1099_eligible ? 'Yes' : 'No'],
    ['W-9 on file', v.w9_on_file ? 'Yes' : 'No'],
    ['Metadata', <MetadataList metadata={v.metadata} />],
    ['Created', formatDateTime(v.created_at)],
    ['Id', <code>{v.id}</code>],
  ],
  journal: false,
  noJournal: "A vendor's journal entries are those of its bills and payments: open one below.",
  documents: true,
  related: (v) => [
    { title: 'Bills', kind: anyKind(BILLS), query: { vendor_id: v.id } },
    { title: 'Vendor payments', kind: anyKind(VENDOR_PAYMENTS), query: { vendor_id: v.id } },
  ],
};

export const BILLS: Kind<Bill> = {
  route: '/bills',
  path: '/v1/bills',
  title: 'Bills',
  one: 'Bill',
  searchParam: 'external_bill_id',
  searchLabel: 'External bill id',
  statuses: ['draft', 'posted', 'reversed'],
  columns: [
    {
      label: 'Number',
      value: (b) => b.bill_number,
      render: (b) => (
        <RecordLink route="/bills" id={b.id}>
          {b.bill_number}
        </RecordLink>
      ),
    },
    { label: 'Vendor', value: (b) => b.vendor_id, render: (b) => <RecordLink route="/vendors" id={b.vendor_id} what="Vendor" /> },
    dayCol('Issued', (b: Bill) => b.issue_date),
    dayCol('Due', (b: Bill) => b.due_date),
    status,
    cents('Total', (b: Bill) => b.total_cents),
    cents('Open balance', (b: Bill) => b.open_balance_cents),
  ],
  heading: (b) => `Bill ${b.bill_number}`,
  facts: (b) => [
    ['Status', <StatusBadge status={b.status} />],
    ['Vendor', <RecordLink route="/vendors" id={b.vendor_id} what="Vendor" />],
    ['External id', <code>{b.external_bill_id}</code>],
    ['Issued', b.issue_date],
    ['Due', b.due_date],
    ['Total', <span class="num">{money(b.total_cents, b.currency)}</span>],
    ['Paid', <span class="num">{money(b.amount_paid_cents, b.currency)}</span>],
    ['Open balance', <span class="num">{money(b.open_balance_cents, b.currency)}</span>],
    ['Expense account', <code>{b.expense_account_id}</code>],
    ['Reversal reason', b.reversal_reason ?? '—'],
    ['Memo', b.memo ?? '—'],
    ['Metadata', <MetadataList metadata={b.metadata} />],
    ['Created', formatDateTime(b.created_at)],
    ['Id', <code>{b.id}</code>],
  ],
  lines: (b) => ({ items: b.line_items, currency: b.currency }),
  journal: true,
  documents: true,
};

type Allocation = VendorPayment['allocations'][number] & { id: string };
const ALLOCATION_COLUMNS: Column<Allocation>[] = [
  { label: 'Bill', value: (a) => a.bill_id, render: (a) => <RecordLink route="/bills" id={a.bill_id} what="Bill" /> },
  cents('Amount', (a: Allocation) => a.amount_cents),
];

export const VENDOR_PAYMENTS: Kind<VendorPayment> = {
  route: '/vendor-payments',
  path: '/v1/vendor-payments',
  title: 'Vendor payments',
  one: 'Vendor payment',
  searchParam: 'external_vendor_payment_id',
  searchLabel: 'External vendor payment id',
  statuses: ['ready', 'posted', 'reversed'],
  columns: [
    {
      label: 'External id',
      value: (p) => p.external_vendor_payment_id,
      render: (p) => (
        <RecordLink route="/vendor-payments" id={p.id}>
          {p.external_vendor_payment_id}
        </RecordLink>
      ),
    },
    { label: 'Vendor', value: (p) => p.vendor_id, render: (p) => <RecordLink route="/vendors" id={p.vendor_id} what="Vendor" /> },
    dayCol('Paid', (p: VendorPayment) => p.payment_date),
    status,
    cents('Amount', (p: VendorPayment) => p.amount_cents),
  ],
  heading: (p) => `Vendor payment ${p.external_vendor_payment_id}`,
  facts: (p) => [
    ['Status', <StatusBadge status={p.status} />],
    ['Vendor', <RecordLink route="/vendors" id={p.vendor_id} what="Vendor" />],
    ['External id', <code>{p.external_vendor_payment_id}</code>],
    ['Amount', <span class="num">{money(p.amount_cents, p.currency)}</span>],
    ['Paid', p.payment_date],
    ['Paid from account', <code>{p.cash_account_id}</code>],
    ['Reversal reason', p.reversal_reason ?? '—'],
    ['Memo', p.memo ?? '—'],
    ['Metadata', <MetadataList metadata={p.metadata} />],
    ['Created', formatDateTime(p.created_at)],
    ['Id', <code>{p.id}</code>],
  ],
  extra: (p) => (
    <section aria-labelledby="allocations-title">
      <h2 id="allocations-title">Bills paid</h2>
      <StaticTable title="Bills paid" columns={ALLOCATION_COLUMNS} rows={p.allocations.map((a, i) => ({ ...a, id: String(i) }))} empty="No allocation." csv={false} />
    </section>
  ),
  journal: true,
  documents: false,
};
