import type { RpcOperation } from './subjects';
import { type JsonSchema, idParams } from './schemas/common';
import * as customers from './schemas/customers';
import * as auth from './schemas/auth';
import * as r from './schemas/receivables';

/** Modules of SPEC.md §1: guidance per route group (warning header, optional hard enforcement). */
export const MODULES = [
  'customers',
  'estimates',
  'invoices',
  'payments',
  'documents',
  'reports',
  'webhooks',
  'embedded_settings',
  'customer_portal',
  'vendors',
  'bills_ap',
  'tax_1099',
] as const;
export type ModuleName = (typeof MODULES)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How the gateway serves a route: `json` (JSON in, RPC, JSON out), `upload` (the request stream goes
 * to an upload handler, no JSON body), `download` (like json, but the reply may carry bytes) and
 * `public` (no API key; a gateway handler answers, e.g. HTML or YAML).
 */
export type RouteKind = 'json' | 'upload' | 'download' | 'public';

export interface SuccessResponse {
  status: 200 | 201;
  description: string;
  schema: JsonSchema;
}

/**
 * One public route: the gateway builds its router from this table and the OpenAPI document is
 * generated from it, so the two cannot drift. `rpc: null` marks a route the gateway serves itself.
 */
export interface RouteDef {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path, e.g. /api/v1/customers/{id}. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  module: ModuleName | null;
  rpc: RpcOperation | null;
  auth: boolean;
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  responses: SuccessResponse[];
  /** Route uses Idempotency-Key as its own dedupe key instead of the gateway's generic replay. */
  ownIdempotency?: boolean;
  /** Absent means 'json'. */
  kind?: RouteKind;
}

const createResponses = (schema: JsonSchema, what: string): SuccessResponse[] => [
  { status: 201, description: `${what} created.`, schema },
  {
    status: 200,
    description: `Replay: the same external id with the same content returns the existing ${what.toLowerCase()} with header Idempotent-Replayed: true.`,
    schema,
  },
];

export const ROUTES: RouteDef[] = [
  {
    operationId: 'getOpenApi',
    method: 'GET',
    path: '/developers/openapi.yaml',
    summary: 'This OpenAPI 3.1 document (no authentication).',
    tag: 'Developers',
    module: null,
    rpc: null,
    auth: false,
    kind: 'public',
    responses: [{ status: 200, description: 'The OpenAPI document as YAML.', schema: { type: 'string' } }],
  },
  {
    operationId: 'checkAuth',
    method: 'GET',
    path: '/api/v1/auth/check',
    summary: 'Check an API key and see which connected app and environment it belongs to.',
    tag: 'Auth',
    module: null,
    rpc: null,
    auth: true,
    responses: [{ status: 200, description: 'The key is valid.', schema: auth.authCheckResponse }],
  },
  {
    operationId: 'listCustomers',
    method: 'GET',
    path: '/api/v1/customers',
    summary: 'List customers, newest first.',
    tag: 'Customers',
    module: 'customers',
    rpc: 'customers.list',
    auth: true,
    query: customers.customerListQuery,
    responses: [{ status: 200, description: 'A page of customers.', schema: customers.customerListResponse }],
  },
  {
    operationId: 'createCustomer',
    method: 'POST',
    path: '/api/v1/customers',
    summary: 'Create a customer; retry-safe on external_customer_id.',
    description:
      'A repeat with the same external_customer_id and the same name and email returns the existing customer (200, Idempotent-Replayed: true); with different content it is refused with 409 conflict.',
    tag: 'Customers',
    module: 'customers',
    rpc: 'customers.create',
    auth: true,
    body: customers.customerCreateBody,
    responses: createResponses(customers.customerResponse, 'Customer'),
  },
  {
    operationId: 'getCustomer',
    method: 'GET',
    path: '/api/v1/customers/{id}',
    summary: 'Get one customer.',
    tag: 'Customers',
    module: 'customers',
    rpc: 'customers.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The customer.', schema: customers.customerResponse }],
  },
  // ---------- invoices ----------
  {
    operationId: 'listInvoices',
    method: 'GET',
    path: '/api/v1/invoices',
    summary: 'List invoices, newest first; filter by status and customer_id.',
    tag: 'Invoices',
    module: 'invoices',
    rpc: 'invoices.list',
    auth: true,
    query: r.invoiceListQuery,
    responses: [{ status: 200, description: 'A page of invoices.', schema: r.invoiceListResponse }],
  },
  {
    operationId: 'createInvoice',
    method: 'POST',
    path: '/api/v1/invoices',
    summary: 'Create a draft invoice; retry-safe on external_invoice_id.',
    description:
      'Always creates a draft (no ledger effect). Line amount = quantity × unit_amount_cents rounded half away from zero; total = sum of line amounts. ' +
      "The customer must exist in the key's organization and environment (404 otherwise); due_date ≥ issue_date; currency USD only.",
    tag: 'Invoices',
    module: 'invoices',
    rpc: 'invoices.create',
    auth: true,
    body: r.invoiceCreateBody,
    responses: createResponses(r.invoiceResponse, 'Invoice'),
  },
  {
    operationId: 'getInvoice',
    method: 'GET',
    path: '/api/v1/invoices/{id}',
    summary: 'Get one invoice.',
    tag: 'Invoices',
    module: 'invoices',
    rpc: 'invoices.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The invoice.', schema: r.invoiceResponse }],
  },
  {
    operationId: 'postInvoice',
    method: 'POST',
    path: '/api/v1/invoices/{id}/post',
    summary: 'Post a draft invoice: Dr Accounts Receivable / Cr Revenue, dated issue_date.',
    description:
      'draft → open and emits invoice.posted. Posting an invoice that is already posted returns its current state (200, Idempotent-Replayed: true) with no second ledger entry. ' +
      'A zero-total invoice has nothing to collect: it posts straight to paid, with no journal entry.',
    tag: 'Invoices',
    module: 'invoices',
    rpc: 'invoices.post',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The posted invoice with action {type: posted, status: completed}.', schema: r.invoicePostResponse }],
  },
  // ---------- payments ----------
  {
    operationId: 'listPayments',
    method: 'GET',
    path: '/api/v1/payments',
    summary: 'List customer payments, newest first; filter by invoice_id.',
    tag: 'Payments',
    module: 'payments',
    rpc: 'payments.list',
    auth: true,
    query: r.paymentListQuery,
    responses: [{ status: 200, description: 'A page of payments.', schema: r.paymentListResponse }],
  },
  {
    operationId: 'createPayment',
    method: 'POST',
    path: '/api/v1/payments',
    summary: 'Record a customer payment against an open invoice; retry-safe on external_payment_id.',
    description:
      'The invoice must be open or partially_paid (409 otherwise) and amount_cents ≤ its open balance (409 with issue exceeds_open_balance). ' +
      'Dr Cash (source manual) or Dr Processor clearing (source processor) / Cr Accounts Receivable, dated the UTC date of received_at. ' +
      'Emits payment.posted and invoice.paid or invoice.partially_paid.',
    tag: 'Payments',
    module: 'payments',
    rpc: 'payments.create',
    auth: true,
    body: r.paymentCreateBody,
    responses: createResponses(r.paymentResponse, 'Payment'),
  },
  {
    operationId: 'getPayment',
    method: 'GET',
    path: '/api/v1/payments/{id}',
    summary: 'Get one payment.',
    tag: 'Payments',
    module: 'payments',
    rpc: 'payments.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The payment.', schema: r.paymentResponse }],
  },
  // ---------- processor payouts ----------
  {
    operationId: 'listProcessorPayouts',
    method: 'GET',
    path: '/api/v1/processor-payouts',
    summary: 'List processor payouts, newest first; filter by processor.',
    tag: 'Processor payouts',
    module: 'payments',
    rpc: 'payouts.list',
    auth: true,
    query: r.payoutListQuery,
    responses: [{ status: 200, description: 'A page of payouts.', schema: r.payoutListResponse }],
  },
  {
    operationId: 'createProcessorPayout',
    method: 'POST',
    path: '/api/v1/processor-payouts',
    summary: 'Record a processor payout (clearing); retry-safe on external_payout_id.',
    description: 'gross_cents − fee_cents must equal net_cents (400). Dr Operating bank net, Dr Processor fees fee / Cr Processor clearing gross, dated payout_date.',
    tag: 'Processor payouts',
    module: 'payments',
    rpc: 'payouts.create',
    auth: true,
    body: r.payoutCreateBody,
    responses: createResponses(r.payoutResponse, 'Processor payout'),
  },
  {
    operationId: 'getProcessorPayout',
    method: 'GET',
    path: '/api/v1/processor-payouts/{id}',
    summary: 'Get one processor payout.',
    tag: 'Processor payouts',
    module: 'payments',
    rpc: 'payouts.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The payout.', schema: r.payoutResponse }],
  },
  // ---------- estimates ----------
  {
    operationId: 'listEstimates',
    method: 'GET',
    path: '/api/v1/estimates',
    summary: 'List estimates, newest first; filter by status and customer_id.',
    tag: 'Estimates',
    module: 'estimates',
    rpc: 'estimates.list',
    auth: true,
    query: r.estimateListQuery,
    responses: [{ status: 200, description: 'A page of estimates.', schema: r.estimateListResponse }],
  },
  {
    operationId: 'createEstimate',
    method: 'POST',
    path: '/api/v1/estimates',
    summary: 'Create a draft estimate (no ledger effect); retry-safe on external_estimate_id.',
    tag: 'Estimates',
    module: 'estimates',
    rpc: 'estimates.create',
    auth: true,
    body: r.estimateCreateBody,
    responses: createResponses(r.estimateResponse, 'Estimate'),
  },
  {
    operationId: 'getEstimate',
    method: 'GET',
    path: '/api/v1/estimates/{id}',
    summary: 'Get one estimate.',
    tag: 'Estimates',
    module: 'estimates',
    rpc: 'estimates.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The estimate.', schema: r.estimateResponse }],
  },
  {
    operationId: 'setEstimateStatus',
    method: 'POST',
    path: '/api/v1/estimates/{id}/status',
    summary: 'Move an estimate: draft → sent | accepted; sent → accepted | declined | expired.',
    description: 'Setting the status it already has returns it unchanged (200, Idempotent-Replayed: true); any other move is 409 conflict.',
    tag: 'Estimates',
    module: 'estimates',
    rpc: 'estimates.status',
    auth: true,
    params: idParams,
    body: r.estimateStatusBody,
    responses: [{ status: 200, description: '{id, status}.', schema: r.estimateStatusResponse }],
  },
  {
    operationId: 'convertEstimate',
    method: 'POST',
    path: '/api/v1/estimates/{id}/convert',
    summary: 'Convert an accepted estimate to a draft invoice (not posted).',
    description:
      "The invoice gets the estimate's customer, lines and currency. Optional body: external_invoice_id (default estimate-<estimate id>), invoice_number (default the external_estimate_id), " +
      'issue_date (default today, UTC) and due_date (default issue_date + 30 days). A second convert returns the same invoice (200, Idempotent-Replayed: true).',
    tag: 'Estimates',
    module: 'estimates',
    rpc: 'estimates.convert',
    auth: true,
    params: idParams,
    body: r.estimateConvertBody,
    responses: [{ status: 200, description: 'The conversion result.', schema: r.estimateConvertResponse }],
  },
  // ---------- inbound events ----------
  {
    operationId: 'createEvent',
    method: 'POST',
    path: '/api/v1/events',
    summary: 'Send an inbound event (payment.received, payment.refunded, or a stored-only type).',
    description:
      'Active: payment.received (validated, matched to an invoice by external_invoice_id and posted as a payment: status processed; otherwise stored as failed with details) and ' +
      'payment.refunded (a full refund of a payment that came from an event reverses it and reopens the invoice: processed; otherwise stored with details). ' +
      'Stored only: customer.created, customer.updated, invoice.created, invoice.voided, credit.applied, expense.created. ' +
      'Planned types (estimate.created, vendor.created, bill.posted, vendor_payment.posted, document.uploaded) and unknown types: 400 validation_failed. ' +
      "A repeat (same external_event_id, or same Idempotency-Key) answers 200 with duplicate: true and the first event's id and status; the same id with another type or payload is 409.",
    tag: 'Events',
    module: 'webhooks',
    rpc: 'events.create',
    auth: true,
    body: r.eventCreateBody,
    ownIdempotency: true,
    responses: [
      { status: 201, description: 'The event was new.', schema: r.eventResponse },
      { status: 200, description: 'A duplicate: the first event.', schema: r.eventResponse },
    ],
  },
];

export function findRoute(operationId: string): RouteDef {
  const r = ROUTES.find((x) => x.operationId === operationId);
  if (!r) throw new Error(`unknown route ${operationId}`);
  return r;
}
