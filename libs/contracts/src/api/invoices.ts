import { Optional, type Static, Type } from '@sinclair/typebox';
import { recordResource } from '../record-resource';
import { Nullable, StringEnum, dateTime, externalId, lookupBy, obj, paginationQuery, uuid } from '../schemas/common';
import { currency, documentNumber, dueDocument, dueDocumentInput, memo } from '../schemas/line-items';

const INVOICE_STATUSES = ['draft', 'open', 'partially_paid', 'paid'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];
export const invoiceCreateBody = obj({
  external_invoice_id: externalId,
  customer_id: uuid,
  invoice_number: documentNumber,
  ...dueDocumentInput,
  currency: Optional(currency),
  memo: Optional(memo),
});
export const invoice = obj({
  id: uuid,
  external_invoice_id: Type.String(),
  customer_id: uuid,
  invoice_number: Type.String(),
  ...dueDocument,
  status: StringEnum(INVOICE_STATUSES),
  total_cents: Type.Integer(),
  amount_paid_cents: Type.Integer(),
  balance_due_cents: Type.Integer({ description: 'Open balance: total less payments (0 while draft).' }),
  currency: Type.String(),
  memo: Optional(Nullable(Type.String())),
  estimate_id: Optional(Nullable(uuid)),
  posted_at: Optional(Nullable(dateTime)),
  created_at: dateTime,
});
export type InvoiceDto = Static<typeof invoice>;
export const invoiceListQuery = obj({ ...paginationQuery, ...lookupBy('external_invoice_id'), status: Optional(StringEnum(INVOICE_STATUSES)), customer_id: Optional(uuid) });

export const {
  response: invoiceResponse,
  listResponse: invoiceListResponse,
  postResponse: invoicePostResponse,
  operations: invoiceOperations,
  routes: invoiceRoutes,
} = recordResource({
  service: 'receivables',
  resource: 'invoices',
  one: 'invoice',
  many: 'invoices',
  record: invoice,
  create: invoiceCreateBody,
  query: invoiceListQuery,
  http: { name: 'Invoice', path: '/api/v1/invoices', tag: 'Invoices', module: 'invoices' },
  actions: ['post'],
  routes: (invoices) => [
    invoices.list('List invoices, newest first; filter by status and customer_id.'),
    invoices.create({
      summary: 'Create a draft invoice; retry-safe on external_invoice_id.',
      description:
        'Always creates a draft (no ledger effect). Line amount = quantity × unit_amount_cents rounded half away from zero; total = sum of line amounts. ' +
        "The customer must exist in the key's organization and environment (404 otherwise); due_date ≥ issue_date (400, issue before_issue_date); currency USD only (400); line quantities with at most 4 decimals (400).",
    }),
    invoices.get(),
    invoices.action('post', {
      summary: 'Post a draft invoice: Dr Accounts Receivable / Cr Revenue, dated issue_date.',
      description:
        'draft → open and emits invoice.posted. Posting an invoice that is already posted returns its current state (200, Idempotent-Replayed: true) with no second ledger entry. ' +
        'A zero-total invoice has nothing to collect: it posts straight to paid, with no journal entry.',
    }),
  ],
});
