import { Optional, type Static, Type } from '@sinclair/typebox';
import { draftUpdateText } from '../openapi-texts';
import { recordResource } from '../record-resource';
import { DATE_RANGE_TEXT, Nullable, StringEnum, date, dateTime, idParams, obj, optionalAll, recordListQuery, uuid, withAction } from '../schemas/common';
import { metadataInput, metadataRecord } from '../schemas/metadata';
import { currency, dueDocument, dueDocumentInput, memo } from '../schemas/line-items';

const INVOICE_STATUSES = ['draft', 'open', 'partially_paid', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];
export const invoiceCreateBody = obj({
  ...dueDocumentInput('invoice', 'customer'),
  currency: Optional(currency),
  memo: Optional(memo),
  metadata: Optional(metadataInput),
});
/**
 * PATCH /invoices/{id} (API-DECISIONS §11): any create field while draft (memo null clears it), only metadata once
 * posted. Fields left out keep their value; metadata merges.
 */
export type InvoiceCreateBody = Static<typeof invoiceCreateBody>;
export const invoiceUpdateBody = obj({ ...optionalAll(invoiceCreateBody.properties), memo: Optional(Nullable(memo)) });
export type InvoiceUpdateBody = Static<typeof invoiceUpdateBody>;
export const invoice = obj({
  ...dueDocument('invoice', 'customer'),
  status: StringEnum(INVOICE_STATUSES),
  total_cents: Type.Integer(),
  amount_paid_cents: Type.Integer(),
  balance_due_cents: Type.Integer({ description: 'Open balance: total less payments (0 while draft and once void).' }),
  currency: Type.String(),
  memo: Optional(Nullable(Type.String())),
  estimate_id: Optional(Nullable(uuid)),
  posted_at: Optional(Nullable(dateTime)),
  void_date: Optional(Nullable(date)),
  voided_at: Optional(Nullable(dateTime)),
  metadata: metadataRecord,
  created_at: dateTime,
});
export type InvoiceDto = Static<typeof invoice>;
/** POST /invoices/{id}/void: every member optional, so no body (or {}) voids as of today (UTC). */
export const invoiceVoidBody = obj({
  void_date: Optional(
    Type.String({
      format: 'date',
      description: `The accounting date of the void, the date of its reversing entry (default today, UTC); not before issue_date. Calendar date, YYYY-MM-DD, ${DATE_RANGE_TEXT}.`,
    }),
  ),
});
export const invoiceVoidResponse = withAction('invoice', invoice, 'voided');
export const invoiceListQuery = recordListQuery('external_invoice_id', { status: Optional(StringEnum(INVOICE_STATUSES)), customer_id: Optional(uuid) });

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
  record: invoice,
  create: invoiceCreateBody,
  query: invoiceListQuery,
  http: { name: 'Invoice', path: '/api/v1/invoices', tag: 'Invoices', module: 'invoices' },
  actions: ['post'],
  // Not `update:`: invoices.update keeps its place after invoices.void in the operations.
  more: ({ response }) => ({
    'invoices.void': { params: idParams, body: invoiceVoidBody, reply: invoiceVoidResponse },
    'invoices.update': { params: idParams, body: invoiceUpdateBody, reply: response },
  }),
  routes: (invoices) => [
    invoices.list('List invoices, newest first; filter by status and customer_id.'),
    invoices.create({
      summary: 'Create a draft invoice; retry-safe on external_invoice_id.',
      description:
        'Always creates a draft (no ledger effect). Line amount = quantity × unit_amount_cents rounded half away from zero; total = sum of line amounts. ' +
        "The customer must exist in the key's organization and environment (404 otherwise); due_date ≥ issue_date (400, issue before_issue_date); currency USD only (400); line quantities with at most 4 decimals (400).",
    }),
    invoices.get(),
    invoices.update({
      summary: 'Update an invoice: any create field while draft, only metadata once posted.',
      description: draftUpdateText({ kind: 'invoice', party: 'customer', clears: 'memo null clears it', after: 'posted (open, partially_paid, paid)' }),
    }),
    invoices.action('post', {
      summary: 'Post a draft invoice: Dr Accounts Receivable / Cr Revenue, dated issue_date.',
      description:
        'draft → open and emits invoice.posted. Posting an invoice that is already posted returns its current state (200, Idempotent-Replayed: true) with no second ledger entry. ' +
        'A zero-total invoice has nothing to collect: it posts straight to paid, with no journal entry.',
    }),
    invoices.route('invoices.void', {
      operationId: 'voidInvoice',
      method: 'POST',
      path: '/api/v1/invoices/{id}/void',
      summary: 'Void an invoice: a draft with no ledger effect, an open invoice with no payments with a reversing entry dated void_date.',
      description:
        'Optional body {void_date} (default today, UTC; before issue_date is 400 naming /void_date). A draft becomes void with no journal entry. ' +
        'An open invoice with no payments becomes void with the mirror of its posting entry (Dr Revenue / Cr Accounts Receivable) dated void_date and linked to it: ' +
        'every report as of a date before void_date still shows the invoice, from void_date on its receivable and revenue are back to zero. ' +
        'A partially paid or paid invoice is 409 conflict (refund its payments first). Emits invoice.voided. Voiding a void invoice returns it unchanged ' +
        '(200, Idempotent-Replayed: true) with no second entry. A void invoice takes no payments (409).',
      statuses: { 200: 'The void invoice with action {type: voided, status: completed}.' },
    }),
  ],
});
