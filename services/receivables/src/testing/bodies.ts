import { randomUUID } from 'node:crypto';

/** A valid invoices.create body for the customer: one line of 1000 cents, a fresh external id. */
export function invoiceBody(customerId: string, over: Record<string, unknown> = {}) {
  return {
    external_invoice_id: randomUUID(),
    customer_id: customerId,
    invoice_number: 'INV-1',
    issue_date: '2026-01-10',
    due_date: '2026-02-10',
    line_items: [{ description: 'Work', quantity: 1, unit_amount_cents: 1000 }],
    ...over,
  };
}
