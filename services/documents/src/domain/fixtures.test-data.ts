import type { CustomerDto, InvoiceDto } from '@acct/contracts';
import { partlyPaidInvoice } from '@acct/testing';

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
export const invoice: InvoiceDto = partlyPaidInvoice(123456, 38456, {
  id: 'i1',
  external_invoice_id: 'ext-1',
  customer_id: 'c1',
  invoice_number: 'INV-0042',
  issue_date: '2026-11-01',
  due_date: '2026-12-01',
  created_at: '2026-11-01T00:00:00.000Z',
});
export const settings = {
  customer,
  branding: { business_name: 'Acme Books', payment_instructions: 'Wire to 123', primary_color: '#aa0000', logo_document_id: null },
  invoiceDefaults: { payment_terms_days: 15, default_terms: 'Net 15', default_memo: 'Thanks!', footer: 'Acme Inc., 1 Main St' },
  estimateDefaults: { validity_days: 10, default_terms: 'Valid 10 days', default_memo: null },
};
