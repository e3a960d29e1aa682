import type { CustomerDto, InvoiceDto } from '@acct/contracts';

/** An invoice, its customer and settings, shared by the domain's tests. */
export const customer: CustomerDto = {
  id: 'c1',
  external_customer_id: 'x',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  status: 'active',
  metadata: {},
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};
export const invoice: InvoiceDto = {
  id: 'i1',
  external_invoice_id: 'ext-1',
  customer_id: 'c1',
  invoice_number: 'INV-0042',
  issue_date: '2026-11-01',
  due_date: '2026-12-01',
  line_items: [
    { description: 'Consulting', quantity: 1.5, unit_amount_cents: 10000, amount_cents: 15000 },
    { description: 'Travel', quantity: 1, unit_amount_cents: 123456, amount_cents: 123456 },
  ],
  status: 'partially_paid',
  total_cents: 138456,
  amount_paid_cents: 38456,
  balance_due_cents: 100000,
  currency: 'USD',
  memo: null,
  metadata: {},
  created_at: '2026-11-01T00:00:00.000Z',
};
export const settings = {
  customer,
  branding: { business_name: 'Acme Books', payment_instructions: 'Wire to 123', primary_color: '#aa0000', logo_document_id: null },
  invoiceDefaults: { payment_terms_days: 15, default_terms: 'Net 15', default_memo: 'Thanks!', footer: 'Acme Inc., 1 Main St' },
  estimateDefaults: { validity_days: 10, default_terms: 'Valid 10 days', default_memo: null },
};
