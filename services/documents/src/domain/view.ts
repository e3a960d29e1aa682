import type { CustomerDto, DocumentBrandingDto, EstimateDefaultsDto, EstimateDto, InvoiceDefaultsDto, InvoiceDto, ShareRecordType } from '@acct/contracts';
import { limits } from '@acct/contracts';

/**
 * What a render (PDF) and the portal page show of an invoice or an estimate, built once from the
 * record, its customer and the settings, so that the two never disagree.
 */
export interface RecordView {
  kind: ShareRecordType;
  title: 'Invoice' | 'Estimate';
  number: string;
  status: string;
  currency: string;
  dates: { label: string; value: string }[];
  customer: { name: string; email: string | null };
  lines: { description: string; quantity: string; unit: string; amount: string }[];
  totals: { label: string; value: string; strong?: boolean }[];
  /** Open balance (invoices), formatted. */
  balanceDue: string | null;
  business: { name: string | null; color: string; instructions: string | null };
  terms: string | null;
  memo: string | null;
  footer: string | null;
}

export const DEFAULT_BRAND_COLOR = '#1f3a5f';

/** 123456 → "$1,234.56" (USD, the only currency accepted today); any other code is written after the amount. */
export function formatCents(cents: number, currency = 'USD'): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(cents));
  const whole = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const amount = `${whole}.${String(abs % 100).padStart(2, '0')}`;
  return currency === 'USD' ? `${sign}$${amount}` : `${sign}${amount} ${currency}`;
}

/** YYYY-MM-DD plus n days (UTC calendar arithmetic), never past the last date the API takes. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.getUTCFullYear() > 9999 ? limits.date_max : d.toISOString().slice(0, 10);
}

const STATUS_TEXT: Record<string, string> = {
  draft: 'Draft',
  open: 'Open',
  partially_paid: 'Partially paid',
  paid: 'Paid',
  void: 'Void',
  sent: 'Sent',
  accepted: 'Accepted',
  declined: 'Declined',
  expired: 'Expired',
  converted: 'Converted',
};

interface ViewInput {
  customer: CustomerDto;
  branding: DocumentBrandingDto;
  invoiceDefaults: InvoiceDefaultsDto;
  estimateDefaults: EstimateDefaultsDto;
}

/**
 * What an invoice and an estimate show alike: their heading (kind, title, number), the issue date
 * then the record's own second date, status, customer, lines and business.
 */
function common(record: InvoiceDto | EstimateDto, input: ViewInput, head: Pick<RecordView, 'kind' | 'title' | 'number'>, second: { label: string; value: string }) {
  const money = (c: number) => formatCents(c, record.currency);
  return {
    ...head,
    dates: [{ label: 'Issue date', value: record.issue_date }, second],
    status: STATUS_TEXT[record.status] ?? record.status,
    currency: record.currency,
    customer: { name: input.customer.name, email: input.customer.email },
    lines: record.line_items.map((l) => ({ description: l.description, quantity: String(l.quantity), unit: money(l.unit_amount_cents), amount: money(l.amount_cents) })),
    business: { name: input.branding.business_name, color: input.branding.primary_color ?? DEFAULT_BRAND_COLOR, instructions: input.branding.payment_instructions },
    money,
  };
}

/**
 * A void invoice still renders (its record is kept), marked Void with its void date, nothing due and
 * no payment instructions: the page and any PDF made after the void say so.
 */
export function invoiceView(inv: InvoiceDto, input: ViewInput): RecordView {
  const { money, ...c } = common(inv, input, { kind: 'invoice', title: 'Invoice', number: inv.invoice_number }, { label: 'Due date', value: inv.due_date });
  const voided = inv.status === 'void';
  return {
    ...c,
    ...(voided && {
      dates: inv.void_date ? [...c.dates, { label: 'Void date', value: inv.void_date }] : c.dates,
      business: { ...c.business, instructions: null },
    }),
    totals: [
      { label: 'Total', value: money(inv.total_cents) },
      { label: 'Amount paid', value: money(inv.amount_paid_cents) },
      { label: 'Balance due', value: money(inv.balance_due_cents), strong: true },
    ],
    balanceDue: money(inv.balance_due_cents),
    terms: input.invoiceDefaults.default_terms,
    memo: inv.memo ?? input.invoiceDefaults.default_memo,
    footer: input.invoiceDefaults.footer,
  };
}

export function estimateView(est: EstimateDto, input: ViewInput): RecordView {
  const validUntil = est.expiry_date ?? addDays(est.issue_date, input.estimateDefaults.validity_days);
  const { money, ...c } = common(est, input, { kind: 'estimate', title: 'Estimate', number: est.external_estimate_id }, { label: 'Valid until', value: validUntil });
  return {
    ...c,
    totals: [{ label: 'Total', value: money(est.total_cents), strong: true }],
    balanceDue: null,
    terms: input.estimateDefaults.default_terms,
    memo: est.memo ?? input.estimateDefaults.default_memo,
    footer: null,
  };
}
