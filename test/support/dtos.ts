import type { BillDto, InvoiceDto, PaymentDto, VendorPaymentDto } from '@acct/contracts';

/** What names an invoice and dates it. */
type InvoiceNames = Pick<InvoiceDto, 'id' | 'external_invoice_id' | 'customer_id' | 'invoice_number' | 'issue_date' | 'due_date' | 'created_at'>;

/**
 * A partially paid USD invoice of two lines, 1.5 h of consulting (15000 cents) and travel
 * (`travelCents`), `paidCents` of it paid: the invoice the unit tests of events and documents start
 * from. `over` names the invoice and adds what a test needs beyond.
 */
export function partlyPaidInvoice(travelCents: number, paidCents: number, over: InvoiceNames & Partial<InvoiceDto>): InvoiceDto {
  const total = 15000 + travelCents;
  const { id, external_invoice_id, customer_id, invoice_number, issue_date, due_date, created_at, ...rest } = over;
  return {
    id,
    external_invoice_id,
    customer_id,
    invoice_number,
    issue_date,
    due_date,
    line_items: [
      { description: 'Consulting', quantity: 1.5, unit_amount_cents: 10000, amount_cents: 15000 },
      { description: 'Travel', quantity: 1, unit_amount_cents: travelCents, amount_cents: travelCents },
    ],
    status: 'partially_paid',
    total_cents: total,
    amount_paid_cents: paidCents,
    balance_due_cents: total - paidCents,
    currency: 'USD',
    memo: null,
    metadata: {},
    created_at,
    ...rest,
  };
}

/** A posted one-line USD document of `cents` (a test's invoice or bill): its id, party, number, dates and creation time. */
interface OneLine {
  id: string;
  party: string;
  number: string;
  issueDate: string;
  dueDate: string;
  cents: number;
  at: string;
}

/** What an invoice and a bill have alike: the one line, the dates, what is paid of it. */
function oneLineDocument(d: OneLine, paid: number) {
  return {
    id: d.id,
    issue_date: d.issueDate,
    due_date: d.dueDate,
    line_items: [{ description: 'Work', quantity: 1, unit_amount_cents: d.cents, amount_cents: d.cents }],
    total_cents: d.cents,
    amount_paid_cents: paid,
    currency: 'USD',
    memo: null,
    posted_at: d.at,
    metadata: {},
    created_at: d.at,
  };
}

/** A posted one-line invoice with `paid` of it paid (paid when anything is: the tests pay it whole). */
export function oneLineInvoice(d: OneLine, paid: number): InvoiceDto {
  return {
    ...oneLineDocument(d, paid),
    external_invoice_id: `inv-${d.id}`,
    customer_id: d.party,
    invoice_number: `INV-${d.number}`,
    status: paid > 0 ? 'paid' : 'open',
    balance_due_cents: d.cents - paid,
    estimate_id: null,
  };
}

/** A posted one-line bill with `paid` of it paid (its expense account a test adds: an account id of its organization). */
export function oneLineBill(d: OneLine, paid: number): Omit<BillDto, 'expense_account_id'> {
  return {
    ...oneLineDocument(d, paid),
    external_bill_id: `bill-${d.id}`,
    vendor_id: d.party,
    bill_number: `B-${d.number}`,
    status: 'posted',
    open_balance_cents: d.cents - paid,
    reversed_at: null,
    reversal_reason: null,
  };
}

/** A manual payment `id` of the whole invoice `d`, received on its issue date. */
export function paymentOf(d: OneLine, id: string): PaymentDto {
  return {
    id,
    external_payment_id: `pay-${id}`,
    invoice_id: d.id,
    amount_cents: d.cents,
    received_date: d.issueDate,
    source: 'manual',
    processor: null,
    currency: 'USD',
    status: 'posted',
    event_id: null,
    metadata: {},
    created_at: d.at,
  };
}

/** A posted vendor payment `id` of the whole bill `d`, paid on its issue date (its cash account a test adds). */
export function vendorPaymentOf(d: OneLine, id: string): Omit<VendorPaymentDto, 'cash_account_id'> {
  return {
    id,
    external_vendor_payment_id: `vp-${id}`,
    vendor_id: d.party,
    amount_cents: d.cents,
    payment_date: d.issueDate,
    allocations: [{ bill_id: d.id, amount_cents: d.cents }],
    status: 'posted',
    currency: 'USD',
    metadata: {},
    memo: null,
    posted_at: d.at,
    reversed_at: null,
    reversal_reason: null,
    created_at: d.at,
  };
}
