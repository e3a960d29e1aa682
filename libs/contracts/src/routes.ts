import type { RpcOperation } from './subjects';
import { type JsonSchema, idParams } from './schemas/common';
import * as customers from './schemas/customers';
import * as auth from './schemas/auth';
import * as r from './schemas/receivables';
import * as ap from './schemas/payables';
import * as wh from './schemas/webhooks';
import * as rep from './schemas/reporting';
import * as doc from './schemas/documents';

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
 * to an upload handler, no JSON body), `download` (like json, but the reply may carry bytes),
 * `public` (no API key; a gateway handler answers, e.g. HTML or YAML) and `raw` (no API key, limited
 * per client address: the body's bytes, unparsed, and the route's signature header go to the service,
 * which authenticates the request by that signature, e.g. a payment processor's webhook).
 */
export type RouteKind = 'json' | 'upload' | 'download' | 'public' | 'raw';

export interface SuccessResponse {
  status: 200 | 201;
  description: string;
  schema: JsonSchema;
  /**
   * The media type of a success that is not JSON (e.g. text/html, application/pdf), or every type
   * it can have (a download sends the type sniffed from the stored bytes).
   */
  contentType?: string | readonly string[];
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
  /** A raw route: the header forwarded with the bytes (e.g. stripe-signature). */
  signatureHeader?: string;
  /** A raw route: what the bytes are (documentation only: the gateway does not parse them). */
  rawBody?: JsonSchema;
  /**
   * Error statuses this route answers beyond those its shape implies (see openapi.ts), with what
   * they mean: e.g. 404 on a route with no id when the setting it reads is not there.
   */
  moreErrors?: Record<string, string>;
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
      "The customer must exist in the key's organization and environment (404 otherwise); due_date ≥ issue_date (400, issue before_issue_date); currency USD only (400); line quantities with at most 4 decimals (400).",
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
    description:
      'gross_cents − fee_cents must equal net_cents (400 validation_failed, issue net_mismatch); currency USD only (400). Dr Operating bank net, Dr Processor fees fee / Cr Processor clearing gross, dated payout_date.',
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
    description:
      "The customer must exist in the key's organization and environment (404 otherwise); expiry_date, when given, ≥ issue_date (400); currency USD only (400); line quantities with at most 4 decimals (400).",
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
      'issue_date (default today, UTC) and due_date (default issue_date + the payment terms of the invoice defaults); due_date ≥ issue_date (400), and a default due date past 9999-12-31 is 400 (send due_date). ' +
      'No body, or {}, takes every default. A second convert returns the same invoice (200, Idempotent-Replayed: true).',
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
  {
    operationId: 'listEvents',
    method: 'GET',
    path: '/api/v1/events',
    summary: 'List inbound events of both sources (api, stripe), newest first, each with its outcome; filter by event_type, status and source.',
    description: 'status: processed (applied to the books), stored (kept without a ledger effect; details say why for a mappable type) or failed (details say why).',
    tag: 'Events',
    module: 'webhooks',
    rpc: 'events.list',
    auth: true,
    query: r.eventListQuery,
    responses: [{ status: 200, description: 'A page of events.', schema: r.eventListResponse }],
  },
  {
    operationId: 'getEvent',
    method: 'GET',
    path: '/api/v1/events/{id}',
    summary: 'Get one inbound event with its source and outcome.',
    tag: 'Events',
    module: 'webhooks',
    rpc: 'events.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The event.', schema: r.eventResponse }],
  },
  // ---------- payment processor (Stripe) ----------
  {
    operationId: 'getPaymentProcessor',
    method: 'GET',
    path: '/api/v1/settings/payment-processor',
    summary: 'The payment processor of the connected app and environment of the key (never its signing secret).',
    description: '404 not_found when none is configured.',
    tag: 'Payment processor',
    module: 'payments',
    rpc: 'payment_processor.get',
    auth: true,
    moreErrors: { '404': 'not_found: no payment processor is configured for the connected app and environment of the key.' },
    responses: [{ status: 200, description: 'The payment processor setting.', schema: r.paymentProcessorResponse }],
  },
  {
    operationId: 'putPaymentProcessor',
    method: 'PUT',
    path: '/api/v1/settings/payment-processor',
    summary: 'Configure Stripe for the connected app and environment of the key: its webhook signing secret (whsec_…) in, the webhook URL to give Stripe out.',
    description:
      'The secret is stored encrypted at rest (AES-256-GCM) and never shown again. The answer carries webhook_url, /hooks/stripe/{source_id} on the gateway, with an unguessable source id; ' +
      'status is unverified until the first correctly signed event arrives (then verified, with verified_at). Putting another secret keeps the source id (Stripe rolls secrets on the same endpoint) ' +
      'and makes the status unverified again; putting the same secret again changes nothing.',
    tag: 'Payment processor',
    module: 'payments',
    rpc: 'payment_processor.put',
    auth: true,
    body: r.paymentProcessorPutBody,
    responses: [{ status: 200, description: 'The payment processor setting.', schema: r.paymentProcessorResponse }],
  },
  {
    operationId: 'deletePaymentProcessor',
    method: 'DELETE',
    path: '/api/v1/settings/payment-processor',
    summary: 'Remove the payment processor setting: its webhook URL answers 404 from then on. Events already stored stay.',
    tag: 'Payment processor',
    module: 'payments',
    rpc: 'payment_processor.delete',
    auth: true,
    moreErrors: { '404': 'not_found: no payment processor is configured for the connected app and environment of the key.' },
    responses: [{ status: 200, description: '{provider, source_id, deleted: true}.', schema: r.paymentProcessorDeleteResponse }],
  },
  {
    operationId: 'receiveStripeEvent',
    method: 'POST',
    path: '/hooks/stripe/{source_id}',
    summary: 'Stripe webhook input (no API key): a signed Stripe event becomes a payment, a refund or a payout clearing.',
    description:
      'Verifies Stripe-Signature over the raw bytes before parsing them (HMAC-SHA-256 of "<t>.<body>" under the signing secret, any of several v1 values, 5 minutes tolerance). ' +
      'Unknown source: 404; missing, malformed or wrong signature or a timestamp outside the tolerance: 400 signature_invalid, nothing stored. ' +
      'A valid event is stored once per Stripe event id (a replay answers 200 with duplicate: true and changes nothing) and answered 200 whether or not it could be mapped. ' +
      'Mappings: payment_intent.succeeded → payment on the invoice named by metadata invoice_id or external_invoice_id (amount_received, dated created, Dr Processor clearing); ' +
      'invoice.paid → the same when the Stripe invoice has that metadata and a payment reference (payment_intent or charge); ' +
      'charge.refunded with amount_refunded = amount → the full refund of that payment (mirror entry, the invoice reopens), a partial refund is stored with a reason; ' +
      'payout.paid with metadata gross_cents, fee_cents and net_cents (gross − fee = net = amount) → processor payout clearing, otherwise stored with a reason; any other type: stored. ' +
      'Limited per client address.',
    tag: 'Payment processor',
    module: null,
    rpc: 'processor_hooks.stripe',
    auth: false,
    kind: 'raw',
    signatureHeader: 'stripe-signature',
    params: r.processorHookParams,
    rawBody: r.stripeEvent,
    responses: [{ status: 200, description: 'Received: the stored event, its outcome, and duplicate: true for a replay.', schema: r.eventResponse }],
  },
  // ---------- vendors ----------
  {
    operationId: 'listVendors',
    method: 'GET',
    path: '/api/v1/vendors',
    summary: 'List vendors, newest first; filter by vendor_type and is_1099_eligible.',
    tag: 'Vendors',
    module: 'vendors',
    rpc: 'vendors.list',
    auth: true,
    query: ap.vendorListQuery,
    responses: [{ status: 200, description: 'A page of vendors.', schema: ap.vendorListResponse }],
  },
  {
    operationId: 'createVendor',
    method: 'POST',
    path: '/api/v1/vendors',
    summary: 'Create a vendor; retry-safe on external_vendor_id.',
    description:
      'vendor_type defaults to contractor, is_1099_eligible and w9_on_file to false. A repeat with the same external_vendor_id and the same content returns the existing vendor ' +
      '(200, Idempotent-Replayed: true); with different content it is refused with 409 conflict.',
    tag: 'Vendors',
    module: 'vendors',
    rpc: 'vendors.create',
    auth: true,
    body: ap.vendorCreateBody,
    responses: createResponses(ap.vendorResponse, 'Vendor'),
  },
  {
    operationId: 'getVendor',
    method: 'GET',
    path: '/api/v1/vendors/{id}',
    summary: 'Get one vendor.',
    tag: 'Vendors',
    module: 'vendors',
    rpc: 'vendors.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The vendor.', schema: ap.vendorResponse }],
  },
  {
    operationId: 'updateVendor',
    method: 'PATCH',
    path: '/api/v1/vendors/{id}',
    summary: 'Update a vendor: any of display_name, email (null clears it), is_1099_eligible, w9_on_file.',
    description: 'Fields left out keep their value; at least one is required. External id and vendor_type do not change.',
    tag: 'Vendors',
    module: 'vendors',
    rpc: 'vendors.update',
    auth: true,
    params: idParams,
    body: ap.vendorUpdateBody,
    responses: [{ status: 200, description: 'The vendor after the update.', schema: ap.vendorResponse }],
  },
  // ---------- bills ----------
  {
    operationId: 'listBills',
    method: 'GET',
    path: '/api/v1/bills',
    summary: 'List bills, newest first; filter by status, vendor_id and issue date range.',
    tag: 'Bills',
    module: 'bills_ap',
    rpc: 'bills.list',
    auth: true,
    query: ap.billListQuery,
    responses: [{ status: 200, description: 'A page of bills.', schema: ap.billListResponse }],
  },
  {
    operationId: 'createBill',
    method: 'POST',
    path: '/api/v1/bills',
    summary: 'Create a bill, posted by default (Dr expense account / Cr Accounts Payable, dated issue_date); retry-safe on external_bill_id.',
    description:
      "status draft defers the posting to POST /bills/{id}/post. The vendor must exist in the key's organization and environment (404 otherwise); due_date ≥ issue_date; currency USD only. " +
      'expense_account_id (default: account 5000 Expenses) must be an expense account of the organization and environment (404 if unknown, 400 if not an expense account). ' +
      'A zero-total bill posts with no journal entry. A repeat with the same external_bill_id and the same content (the requested status aside) returns the existing bill.',
    tag: 'Bills',
    module: 'bills_ap',
    rpc: 'bills.create',
    auth: true,
    body: ap.billCreateBody,
    responses: createResponses(ap.billResponse, 'Bill'),
  },
  {
    operationId: 'getBill',
    method: 'GET',
    path: '/api/v1/bills/{id}',
    summary: 'Get one bill, with its open balance.',
    tag: 'Bills',
    module: 'bills_ap',
    rpc: 'bills.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The bill.', schema: ap.billResponse }],
  },
  {
    operationId: 'postBill',
    method: 'POST',
    path: '/api/v1/bills/{id}/post',
    summary: 'Post a draft bill: Dr expense account / Cr Accounts Payable, dated issue_date.',
    description: 'Posting a posted bill returns it unchanged (200, Idempotent-Replayed: true); a reversed bill cannot be posted (409).',
    tag: 'Bills',
    module: 'bills_ap',
    rpc: 'bills.post',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The posted bill with action {type: posted, status: completed}.', schema: ap.billPostResponse }],
  },
  {
    operationId: 'reverseBill',
    method: 'POST',
    path: '/api/v1/bills/{id}/reverse',
    summary: 'Reverse a posted bill: the mirror journal entry, dated the day of reversal; the original entry is kept.',
    description:
      'Needs a posted bill with no allocation of a posted (unreversed) vendor payment on it: 409 conflict with issue bill_has_payments otherwise (reverse the payments first); ' +
      'a draft bill is 409. Reversing a reversed bill returns it unchanged (200, Idempotent-Replayed: true).',
    tag: 'Bills',
    module: 'bills_ap',
    rpc: 'bills.reverse',
    auth: true,
    params: idParams,
    body: ap.billReverseBody,
    responses: [{ status: 200, description: 'The reversed bill with action {type: reversed, status: completed}.', schema: ap.billReverseResponse }],
  },
  // ---------- vendor payments ----------
  {
    operationId: 'listVendorPayments',
    method: 'GET',
    path: '/api/v1/vendor-payments',
    summary: 'List vendor payments, newest first; filter by vendor_id and status.',
    tag: 'Vendor payments',
    module: 'bills_ap',
    rpc: 'vendor_payments.list',
    auth: true,
    query: ap.vendorPaymentListQuery,
    responses: [{ status: 200, description: 'A page of vendor payments.', schema: ap.vendorPaymentListResponse }],
  },
  {
    operationId: 'createVendorPayment',
    method: 'POST',
    path: '/api/v1/vendor-payments',
    summary: 'Pay a vendor, posted by default (Dr Accounts Payable / Cr cash_account_id, dated payment_date); retry-safe on external_vendor_payment_id.',
    description:
      'status ready defers the posting to POST /vendor-payments/{id}/post. allocations: 1–100 rows, each bill at most once (400 duplicate_bill), each bill of the same vendor (400 vendor_mismatch), ' +
      'and the allocations sum to amount_cents (400 allocation_sum_mismatch). On posting, each bill must be posted (409 bill_draft / bill_reversed) and each allocation at most its open balance ' +
      '(409 exceeds_open_balance). cash_account_id (default: account 1000 Cash) must be a cash, bank or clearing account of the organization and environment (404 if unknown, 400 otherwise).',
    tag: 'Vendor payments',
    module: 'bills_ap',
    rpc: 'vendor_payments.create',
    auth: true,
    body: ap.vendorPaymentCreateBody,
    responses: createResponses(ap.vendorPaymentResponse, 'Vendor payment'),
  },
  {
    operationId: 'getVendorPayment',
    method: 'GET',
    path: '/api/v1/vendor-payments/{id}',
    summary: 'Get one vendor payment.',
    tag: 'Vendor payments',
    module: 'bills_ap',
    rpc: 'vendor_payments.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The vendor payment.', schema: ap.vendorPaymentResponse }],
  },
  {
    operationId: 'postVendorPayment',
    method: 'POST',
    path: '/api/v1/vendor-payments/{id}/post',
    summary: 'Post a ready vendor payment: Dr Accounts Payable / Cr the cash account, dated payment_date.',
    description:
      'The allocation rules are checked again against the bills as they are now. Posting a posted payment returns it unchanged (200, Idempotent-Replayed: true); a reversed one is 409.',
    tag: 'Vendor payments',
    module: 'bills_ap',
    rpc: 'vendor_payments.post',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The posted payment with action {type: posted, status: completed}.', schema: ap.vendorPaymentPostResponse }],
  },
  {
    operationId: 'reverseVendorPayment',
    method: 'POST',
    path: '/api/v1/vendor-payments/{id}/reverse',
    summary: "Reverse a posted vendor payment: the mirror journal entry, dated the day of reversal; the bills' open balances come back.",
    description: 'A ready payment cannot be reversed (409). Reversing a reversed payment returns it unchanged (200, Idempotent-Replayed: true).',
    tag: 'Vendor payments',
    module: 'bills_ap',
    rpc: 'vendor_payments.reverse',
    auth: true,
    params: idParams,
    body: ap.vendorPaymentReverseBody,
    responses: [{ status: 200, description: 'The reversed payment with action {type: reversed, status: completed}.', schema: ap.vendorPaymentReverseResponse }],
  },
  // ---------- webhook endpoints ----------
  {
    operationId: 'createWebhookEndpoint',
    method: 'POST',
    path: '/api/v1/webhook-endpoints',
    summary: 'Register a webhook endpoint for the connected app and environment of the key; the response alone carries its signing secret.',
    description:
      'Deliveries are signed JSON POSTs: Service-Signature is the hex HMAC-SHA-256 under the secret of `<Service-Timestamp>.<raw body>`, Service-Timestamp is Unix seconds, ' +
      'Service-Event-Id equals the body id (the delivery id, the same across retries). A 2xx within 10 s is success; redirects are not followed. Failed deliveries are retried after ' +
      '1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h and 24 h, then marked failed; an endpoint whose deliveries all fail for 3 days is disabled (disabled_reason says why). ' +
      'Live mode: https only, and the host must not resolve to a private, loopback or link-local address (400 validation_failed, issue unsafe_url).',
    tag: 'Webhooks',
    module: 'webhooks',
    rpc: 'webhook_endpoints.create',
    auth: true,
    body: wh.webhookEndpointCreateBody,
    responses: [{ status: 201, description: 'Endpoint created; secret is shown only here.', schema: wh.webhookEndpointCreateResponse }],
  },
  {
    operationId: 'listWebhookEndpoints',
    method: 'GET',
    path: '/api/v1/webhook-endpoints',
    summary: 'List webhook endpoints, newest first (never their secrets).',
    tag: 'Webhooks',
    module: 'webhooks',
    rpc: 'webhook_endpoints.list',
    auth: true,
    query: wh.webhookEndpointListQuery,
    responses: [{ status: 200, description: 'A page of endpoints.', schema: wh.webhookEndpointListResponse }],
  },
  {
    operationId: 'getWebhookEndpoint',
    method: 'GET',
    path: '/api/v1/webhook-endpoints/{id}',
    summary: 'Get one webhook endpoint (never its secret).',
    tag: 'Webhooks',
    module: 'webhooks',
    rpc: 'webhook_endpoints.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The endpoint.', schema: wh.webhookEndpointResponse }],
  },
  {
    operationId: 'deleteWebhookEndpoint',
    method: 'DELETE',
    path: '/api/v1/webhook-endpoints/{id}',
    summary: 'Delete a webhook endpoint: nothing more is delivered to it (pending deliveries are dropped).',
    tag: 'Webhooks',
    module: 'webhooks',
    rpc: 'webhook_endpoints.delete',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: '{id, deleted: true}.', schema: wh.webhookEndpointDeleteResponse }],
  },
  {
    operationId: 'testWebhookEndpoint',
    method: 'POST',
    path: '/api/v1/webhook-endpoints/{id}/test',
    summary: 'Send a webhook.test delivery to the endpoint (queued; see its deliveries for the outcome).',
    description: 'A disabled endpoint is refused with 409 conflict.',
    tag: 'Webhooks',
    module: 'webhooks',
    rpc: 'webhook_endpoints.test',
    auth: true,
    params: idParams,
    responses: [{ status: 201, description: 'The queued delivery.', schema: wh.webhookDeliveryResponse }],
  },
  {
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/api/v1/webhook-endpoints/{id}/deliveries',
    summary: "The endpoint's deliveries, newest first, each with its attempts (time, status code, duration, error, first 1 KiB of the response).",
    tag: 'Webhooks',
    module: 'webhooks',
    rpc: 'webhook_endpoints.deliveries',
    auth: true,
    params: idParams,
    query: wh.webhookDeliveryListQuery,
    responses: [{ status: 200, description: 'A page of deliveries.', schema: wh.webhookDeliveryListResponse }],
  },
  // ---------- documents and settings (documents) ----------
  {
    operationId: 'uploadDocument',
    method: 'POST',
    path: '/api/v1/documents',
    summary: 'Upload an evidence file (multipart/form-data: file, document_type, source, optional record_type + record_id).',
    description:
      'The file is streamed to storage, never held whole in memory. At most 25 MiB by default (413 past it, nothing stored); the type is sniffed from the bytes and must be PDF, PNG, JPEG, WEBP, HEIC, GIF, CSV or plain text (415 otherwise, nothing stored). ' +
      'The file name is kept for display only, sanitized (path parts, control and bidi characters removed). Status is needs_review when document_type is missing or other, or the declared Content-Type of the part disagrees with the sniffed one. ' +
      'Retry-safe with Idempotency-Key: a repeat returns the same document with Idempotent-Replayed: true.',
    tag: 'Documents',
    module: 'documents',
    rpc: null,
    auth: true,
    kind: 'upload',
    body: doc.documentUploadBody,
    responses: [
      { status: 201, description: 'Document stored.', schema: doc.documentResponse },
      { status: 200, description: 'Replay of the same Idempotency-Key: the document it made, with Idempotent-Replayed: true.', schema: doc.documentResponse },
    ],
  },
  {
    operationId: 'listDocuments',
    method: 'GET',
    path: '/api/v1/documents',
    summary: 'List documents, newest first (filters document_type, status, linked_record_id).',
    tag: 'Documents',
    module: 'documents',
    rpc: 'documents.list',
    auth: true,
    query: doc.documentListQuery,
    responses: [{ status: 200, description: 'A page of documents.', schema: doc.documentListResponse }],
  },
  {
    operationId: 'getDocument',
    method: 'GET',
    path: '/api/v1/documents/{id}',
    summary: 'Get one document with its links (storage paths are never shown).',
    tag: 'Documents',
    module: 'documents',
    rpc: 'documents.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The document.', schema: doc.documentResponse }],
  },
  {
    operationId: 'downloadDocument',
    method: 'GET',
    path: '/api/v1/documents/{id}/download',
    summary: 'Download the bytes of a document, streamed.',
    description:
      'Sent with the stored (sniffed) Content-Type, Content-Disposition: attachment with the RFC 6266-encoded file name, X-Content-Type-Options: nosniff, ETag (hex SHA-256 in quotes) and Digest: sha-256=<base64>.',
    tag: 'Documents',
    module: 'documents',
    rpc: 'documents.download',
    auth: true,
    kind: 'download',
    params: idParams,
    responses: [
      {
        status: 200,
        description: 'The file, as the type sniffed from its bytes when it was uploaded (text types with charset=utf-8).',
        schema: { type: 'string', contentEncoding: 'binary' },
        contentType: doc.DOCUMENT_CONTENT_TYPES,
      },
    ],
  },
  {
    operationId: 'linkDocument',
    method: 'POST',
    path: '/api/v1/documents/{id}/link',
    summary: 'Link a document to a customer, invoice, estimate, vendor or bill of the same organization and environment.',
    description:
      'The record must exist (404 otherwise, also for a record of another organization or environment). Linking again to the same record changes nothing: 200 with the current document and `Idempotent-Replayed: true`.',
    tag: 'Documents',
    module: 'documents',
    rpc: 'documents.link',
    auth: true,
    params: idParams,
    body: doc.documentLinkBody,
    responses: [{ status: 200, description: 'Linked.', schema: doc.documentLinkResponse }],
  },
  // ---------- shares, renders and the customer portal (documents) ----------
  {
    operationId: 'createDocumentShare',
    method: 'POST',
    path: '/api/v1/document-shares',
    summary: 'Share an invoice or estimate with its customer: a PDF render and a customer portal page.',
    description:
      'The record must exist in this organization and environment (404 otherwise). Renders a PDF of the record as it is now (number, dates, customer, lines, totals, branding, payment instructions, terms, memo and footer from the settings), ' +
      'stores it, and returns an active share with its render_id and the portal url (no API key needed: the unguessable token in it is the credential). The portal page shows the record live (status, open balance) with a link to the PDF. ' +
      'Retry-safe with Idempotency-Key (a repeat returns the same share).',
    tag: 'Document shares',
    module: 'customer_portal',
    rpc: 'document_shares.create',
    auth: true,
    body: doc.documentShareCreateBody,
    responses: [{ status: 201, description: 'Share and render created.', schema: doc.documentShareResponse }],
  },
  {
    operationId: 'getDocumentShare',
    method: 'GET',
    path: '/api/v1/document-shares/{id}',
    summary: 'Get one share (status, render_id, portal url).',
    tag: 'Document shares',
    module: 'customer_portal',
    rpc: 'document_shares.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The share.', schema: doc.documentShareResponse }],
  },
  {
    operationId: 'revokeDocumentShare',
    method: 'DELETE',
    path: '/api/v1/document-shares/{id}',
    summary: 'Revoke a share: its portal page and PDF link answer 404 from now on. Revoking again changes nothing.',
    tag: 'Document shares',
    module: 'customer_portal',
    rpc: 'document_shares.revoke',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The revoked share.', schema: doc.documentShareResponse }],
  },
  {
    operationId: 'getDocumentRender',
    method: 'GET',
    path: '/api/v1/document-renders/{id}',
    summary: 'Get the safe metadata of a render (storage paths are never shown).',
    tag: 'Document shares',
    module: 'customer_portal',
    rpc: 'document_renders.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The render.', schema: doc.documentRenderResponse }],
  },
  {
    operationId: 'downloadDocumentRender',
    method: 'GET',
    path: '/api/v1/document-renders/{id}/download',
    summary: 'Download the PDF of a render, streamed.',
    description: 'Sent as application/pdf with Content-Disposition: attachment, X-Content-Type-Options: nosniff, ETag (hex SHA-256 in quotes) and Digest: sha-256=<base64>.',
    tag: 'Document shares',
    module: 'customer_portal',
    rpc: 'document_renders.download',
    auth: true,
    kind: 'download',
    params: idParams,
    responses: [{ status: 200, description: 'The PDF.', schema: { type: 'string', contentEncoding: 'binary' }, contentType: 'application/pdf' }],
  },
  {
    operationId: 'getPortalPage',
    method: 'GET',
    path: '/portal/{token}',
    summary: 'The customer portal page of a share (no API key): the invoice or estimate, its status and open balance, and a link to the PDF.',
    description:
      'HTML with a strict Content-Security-Policy (no scripts; styles by nonce; images inline only), every field escaped, no caching, noindex. An unknown or revoked token answers 404 with a page that reveals nothing. Limited per client address.',
    tag: 'Customer portal',
    module: null,
    rpc: null,
    auth: false,
    kind: 'public',
    params: doc.portalParams,
    responses: [{ status: 200, description: 'The page.', schema: { type: 'string' }, contentType: 'text/html' }],
  },
  {
    operationId: 'getPortalPdf',
    method: 'GET',
    path: '/portal/{token}/pdf',
    summary: 'The PDF of a share (no API key), streamed; 404 for an unknown or revoked token.',
    tag: 'Customer portal',
    module: null,
    rpc: null,
    auth: false,
    kind: 'public',
    params: doc.portalParams,
    responses: [{ status: 200, description: 'The PDF.', schema: { type: 'string', contentEncoding: 'binary' }, contentType: 'application/pdf' }],
  },
  {
    operationId: 'getCapabilities',
    method: 'GET',
    path: '/api/v1/settings/capabilities',
    summary: 'Which settings this API offers (always available).',
    tag: 'Settings',
    module: null,
    rpc: 'settings.capabilities',
    auth: true,
    responses: [{ status: 200, description: 'The capabilities.', schema: doc.capabilitiesResponse }],
  },
  ...(
    [
      [
        'DocumentBranding',
        'document-branding',
        'document_branding',
        'document branding (business name, colour, logo document, payment instructions)',
        doc.documentBrandingBody,
        doc.documentBrandingResponse,
      ],
      [
        'InvoiceDefaults',
        'invoice-defaults',
        'invoice_defaults',
        'invoice defaults (payment terms in days, terms text, memo, footer)',
        doc.invoiceDefaultsBody,
        doc.invoiceDefaultsResponse,
      ],
      ['EstimateDefaults', 'estimate-defaults', 'estimate_defaults', 'estimate defaults (validity days, terms text, memo)', doc.estimateDefaultsBody, doc.estimateDefaultsResponse],
    ] as const
  ).flatMap(([Name, path, op, what, body, response]): RouteDef[] => [
    {
      operationId: `get${Name}`,
      method: 'GET',
      path: `/api/v1/settings/${path}`,
      summary: `Get the ${what} of this organization and environment; defaults when never set.`,
      tag: 'Settings',
      module: 'embedded_settings',
      rpc: `settings.${op}.get`,
      auth: true,
      responses: [{ status: 200, description: `The ${what.split(' (')[0]}.`, schema: response }],
    },
    {
      operationId: `put${Name}`,
      method: 'PUT',
      path: `/api/v1/settings/${path}`,
      summary: `Update the ${what}; fields left out keep their value, null clears one.`,
      tag: 'Settings',
      module: 'embedded_settings',
      rpc: `settings.${op}.put`,
      auth: true,
      body,
      responses: [{ status: 200, description: `The updated ${what.split(' (')[0]}.`, schema: response }],
    },
  ]),
  // ---------- ledger and reports (reporting) ----------
  {
    operationId: 'listAccounts',
    method: 'GET',
    path: '/api/v1/accounts',
    summary: 'The chart of accounts with each account’s debit and credit totals and balance.',
    description:
      'Read-your-writes: a read after a write that returned 2xx includes it; if the projection cannot catch up within a few seconds the answer is 503 service_unavailable with Retry-After, never a stale figure.',
    tag: 'Ledger',
    module: 'reports',
    rpc: 'accounts.list',
    auth: true,
    query: rep.accountListQuery,
    responses: [{ status: 200, description: 'A page of accounts, by code.', schema: rep.accountListResponse }],
  },
  {
    operationId: 'getAccount',
    method: 'GET',
    path: '/api/v1/accounts/{id}',
    summary: 'One account with its balance.',
    description:
      'Read-your-writes: a read after a write that returned 2xx includes it; if the projection cannot catch up within a few seconds the answer is 503 service_unavailable with Retry-After, never a stale figure.',
    tag: 'Ledger',
    module: 'reports',
    rpc: 'accounts.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The account.', schema: rep.accountResponse }],
  },
  {
    operationId: 'listJournalEntries',
    method: 'GET',
    path: '/api/v1/journal-entries',
    summary: 'Journal entries with their lines, newest first; filter by source_type, source_id and entry date from/to.',
    description:
      'from after to is 400 validation_failed. Read-your-writes: a read after a write that returned 2xx includes it; if the projection cannot catch up within a few seconds the answer is 503 service_unavailable with Retry-After, never a stale figure.',
    tag: 'Ledger',
    module: 'reports',
    rpc: 'journal_entries.list',
    auth: true,
    query: rep.journalEntryListQuery,
    responses: [{ status: 200, description: 'A page of journal entries.', schema: rep.journalEntryListResponse }],
  },
  {
    operationId: 'getSummaryReport',
    method: 'GET',
    path: '/api/v1/reports/summary',
    summary: 'Revenue over [from, to] and the A/R (and A/P) balance at the end of to.',
    description:
      'from after to is 400 validation_failed. Read-your-writes: a read after a write that returned 2xx includes it; if the projection cannot catch up within a few seconds the answer is 503 service_unavailable with Retry-After, never a stale figure.',
    tag: 'Reports',
    module: 'reports',
    rpc: 'reports.summary',
    auth: true,
    query: rep.summaryQuery,
    responses: [{ status: 200, description: 'The summary.', schema: rep.summaryResponse }],
  },
  {
    operationId: 'getAccountsReceivableReport',
    method: 'GET',
    path: '/api/v1/reports/accounts-receivable',
    summary: 'Open A/R as of as_of: total, customers with a balance, aging buckets by due date, one row per customer.',
    description:
      'Read-your-writes: a read after a write that returned 2xx includes it; if the projection cannot catch up within a few seconds the answer is 503 service_unavailable with Retry-After, never a stale figure.',
    tag: 'Reports',
    module: 'reports',
    rpc: 'reports.accounts_receivable',
    auth: true,
    query: rep.agingQuery,
    responses: [{ status: 200, description: 'The A/R report.', schema: rep.receivablesReportResponse }],
  },
  {
    operationId: 'getAccountsPayableReport',
    method: 'GET',
    path: '/api/v1/reports/accounts-payable',
    summary: 'Open A/P as of as_of: total, vendors with a balance, aging buckets by due date, one row per vendor.',
    description:
      'Read-your-writes: a read after a write that returned 2xx includes it; if the projection cannot catch up within a few seconds the answer is 503 service_unavailable with Retry-After, never a stale figure.',
    tag: 'Reports',
    module: 'bills_ap',
    rpc: 'reports.accounts_payable',
    auth: true,
    query: rep.agingQuery,
    responses: [{ status: 200, description: 'The A/P report.', schema: rep.payablesReportResponse }],
  },
  {
    operationId: 'get1099Summary',
    method: 'GET',
    path: '/api/v1/reports/1099-summary',
    summary: 'Payments to vendors in a year against the 1099 threshold (60000 cents up to 2025, 200000 from 2026).',
    description:
      'Paid = posted vendor payments never reversed, by payment date. Totals count 1099-eligible vendors at or over the threshold; include_ineligible=true lists ineligible vendors (flagged), never in the totals. Read-your-writes: a read after a write that returned 2xx includes it; if the projection cannot catch up within a few seconds the answer is 503 service_unavailable with Retry-After, never a stale figure.',
    tag: 'Reports',
    module: 'tax_1099',
    rpc: 'reports.form_1099',
    auth: true,
    query: rep.form1099Query,
    responses: [{ status: 200, description: 'The 1099 summary.', schema: rep.form1099Response }],
  },
  {
    operationId: 'getTrialBalance',
    method: 'GET',
    path: '/api/v1/reports/trial-balance',
    summary: 'Every account’s balance as of as_of in the debit or credit column; the two columns are equal.',
    description:
      'Read-your-writes: a read after a write that returned 2xx includes it; if the projection cannot catch up within a few seconds the answer is 503 service_unavailable with Retry-After, never a stale figure.',
    tag: 'Reports',
    module: 'reports',
    rpc: 'reports.trial_balance',
    auth: true,
    query: rep.trialBalanceQuery,
    responses: [{ status: 200, description: 'The trial balance.', schema: rep.trialBalanceResponse }],
  },
];

export function findRoute(operationId: string): RouteDef {
  const r = ROUTES.find((x) => x.operationId === operationId);
  if (!r) throw new Error(`unknown route ${operationId}`);
  return r;
}
