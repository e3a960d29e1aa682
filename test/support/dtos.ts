import type { InvoiceDto } from '@acct/contracts';

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
