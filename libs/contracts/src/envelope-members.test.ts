import { ROUTES } from './api/index';
import { WEBHOOK_DEFAULT_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from './api/webhook-endpoints';
import type { RouteDef } from './rpc-catalogue';

/**
 * The envelope member beside `data` of every route, transcribed from the contract, not from the
 * code: SPEC.md §1 "Common envelope" (resource names, list plurals, `action` on post, reverse and
 * link) and §4 (data-only routes), and API-DECISIONS §3 (report and added list names; "one record:
 * its resource name"). Each route of the table must answer with exactly these members, so a route
 * cannot drift from the contract (it did: every report answered under `report`), and a new route
 * cannot be added without saying here which member it answers under.
 *
 * `[]` means data only. A string in angle brackets is a route that is not a JSON envelope.
 */
/** A collection of records (SPEC §1): its list under the plural with pagination, one record under its name. */
const records = (path: string, one: string, many: string): Record<string, string[]> => ({
  [`GET ${path}`]: [many, 'pagination'],
  [`POST ${path}`]: [one],
  [`GET ${path}/{id}`]: [one],
});

const CONTRACT: Record<string, string[]> = {
  'GET /developers/openapi.yaml': ['<not json>'],
  'GET /developers/openapi.json': ['<not json>'], // the same document as JSON: not an envelope
  'GET /developers': ['<not json>'], // API-DECISIONS §11: the reference page (HTML)
  'GET /developers/redoc.js': ['<not json>'], // its script
  'GET /api/v1/auth/check': [], // SPEC §4 Auth: response data only
  // SPEC §1: customer(s), invoice(s), payment(s), processor_payout(s), estimate, document(s), vendor(s), …
  ...records('/api/v1/customers', 'customer', 'customers'),
  'PATCH /api/v1/customers/{id}': ['customer'], // API-DECISIONS §11: 200 with the record
  ...records('/api/v1/invoices', 'invoice', 'invoices'),
  'POST /api/v1/invoices/{id}/post': ['invoice', 'action'], // SPEC §4: Invoice + action
  'POST /api/v1/invoices/{id}/void': ['invoice', 'action'], // API-DECISIONS §11: action {type: voided}
  'PATCH /api/v1/invoices/{id}': ['invoice'], // API-DECISIONS §11
  ...records('/api/v1/payments', 'payment', 'payments'),
  ...records('/api/v1/processor-payouts', 'processor_payout', 'processor_payouts'),
  ...records('/api/v1/estimates', 'estimate', 'estimates'), // API-DECISIONS §3
  'PATCH /api/v1/estimates/{id}': ['estimate'], // API-DECISIONS §11
  'POST /api/v1/estimates/{id}/status': ['estimate'], // SPEC §4: data {id, status}; also under estimate
  'POST /api/v1/estimates/{id}/convert': [], // SPEC §4: conversion result (data only)
  ...records('/api/v1/events', 'event', 'events'), // SPEC §4: POST also under event; API-DECISIONS §3: the list
  'GET /api/v1/settings/payment-processor': ['payment_processor'],
  'PUT /api/v1/settings/payment-processor': ['payment_processor'],
  'DELETE /api/v1/settings/payment-processor': ['payment_processor'],
  'POST /hooks/stripe/{source_id}': ['event'],
  ...records('/api/v1/vendors', 'vendor', 'vendors'),
  'PATCH /api/v1/vendors/{id}': ['vendor'], // API-DECISIONS §4: 200 with the vendor
  ...records('/api/v1/bills', 'bill', 'bills'), // API-DECISIONS §3
  'PATCH /api/v1/bills/{id}': ['bill'], // API-DECISIONS §11
  'POST /api/v1/bills/{id}/post': ['bill', 'action'],
  'POST /api/v1/bills/{id}/reverse': ['bill', 'action'],
  ...records('/api/v1/vendor-payments', 'vendor_payment', 'vendor_payments'),
  'POST /api/v1/vendor-payments/{id}/post': ['vendor_payment', 'action'],
  'POST /api/v1/vendor-payments/{id}/reverse': ['vendor_payment', 'action'],
  ...records('/api/v1/webhook-endpoints', 'webhook_endpoint', 'webhook_endpoints'), // API-DECISIONS §3
  'DELETE /api/v1/webhook-endpoints/{id}': ['webhook_endpoint'],
  'POST /api/v1/webhook-endpoints/{id}/test': ['webhook_delivery'],
  'PATCH /api/v1/webhook-endpoints/{id}': ['webhook_endpoint'], // API-DECISIONS §11: 200 with the endpoint
  'POST /api/v1/webhook-endpoints/{id}/rotate-secret': ['webhook_endpoint'], // API-DECISIONS §11: the endpoint with its new secret
  'POST /api/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/retry': ['webhook_delivery'], // API-DECISIONS §11: 202 with the delivery
  'GET /api/v1/webhook-endpoints/{id}/deliveries': ['webhook_deliveries', 'pagination'], // API-DECISIONS §3
  ...records('/api/v1/documents', 'document', 'documents'),
  'GET /api/v1/documents/{id}/download': ['<not json>'], // SPEC §4: binary file stream
  'POST /api/v1/documents/{id}/link': ['document', 'action'], // SPEC §4: data; document; action
  'POST /api/v1/document-shares': ['document_share'],
  'GET /api/v1/document-shares/{id}': ['document_share'],
  'DELETE /api/v1/document-shares/{id}': ['document_share'],
  'GET /api/v1/document-renders/{id}': ['document_render'],
  'GET /api/v1/document-renders/{id}/download': ['<not json>'],
  'GET /portal/{token}': ['<not json>'],
  'GET /portal/{token}/pdf': ['<not json>'],
  'GET /api/v1/settings/capabilities': ['capabilities'],
  'GET /api/v1/settings/document-branding': ['document_branding'],
  'PUT /api/v1/settings/document-branding': ['document_branding'],
  'GET /api/v1/settings/invoice-defaults': ['invoice_defaults'],
  'PUT /api/v1/settings/invoice-defaults': ['invoice_defaults'],
  'GET /api/v1/settings/estimate-defaults': ['estimate_defaults'],
  'PUT /api/v1/settings/estimate-defaults': ['estimate_defaults'],
  'GET /api/v1/settings/books-lock': ['books_lock'], // API-DECISIONS §12
  'PUT /api/v1/settings/books-lock': ['books_lock'],
  'GET /api/v1/accounts': ['accounts', 'pagination'], // API-DECISIONS §3
  'GET /api/v1/accounts/{id}': ['account'],
  'GET /api/v1/journal-entries': ['journal_entries', 'pagination'], // API-DECISIONS §3
  'GET /api/v1/ledger/verification': ['ledger_verification'], // API-DECISIONS §12
  // SPEC §1 and API-DECISIONS §3: the reports
  'GET /api/v1/reports/summary': ['report_summary'],
  'GET /api/v1/reports/accounts-receivable': ['accounts_receivable'],
  'GET /api/v1/reports/accounts-payable': ['accounts_payable'],
  'GET /api/v1/reports/1099-summary': ['tax_1099_summary'],
  'GET /api/v1/reports/trial-balance': ['trial_balance'],
  // API-DECISIONS §14: the financial statements and the fiscal year setting
  'GET /api/v1/settings/fiscal-year': ['fiscal_year'],
  'PUT /api/v1/settings/fiscal-year': ['fiscal_year'],
  'GET /api/v1/reports/profit-and-loss': ['profit_and_loss'],
  'GET /api/v1/reports/balance-sheet': ['balance_sheet'],
  'GET /api/v1/reports/general-ledger': ['general_ledger'],
};

/** SPEC.md §1: the action type values of post, reverse and link. */
const ACTION_TYPES: Record<string, string> = { post: 'posted', reverse: 'reversed', link: 'linked', void: 'voided' }; // void: API-DECISIONS §11

type Schema = { type?: string; properties?: Record<string, Schema>; required?: string[]; enum?: unknown[]; const?: unknown };
const key = (r: RouteDef) => `${r.method} ${r.path}`;

/** The members beside `data` of one success response, as the route table declares them. */
function members(s: { schema: Schema; contentType?: unknown }): string[] {
  if (s.contentType || s.schema.type !== 'object' || !s.schema.properties) return ['<not json>'];
  return Object.keys(s.schema.properties).filter((k) => k !== 'data');
}

describe('envelope members (SPEC.md §1, API-DECISIONS §3) derived from the route table', () => {
  it('the table covers every route and only routes that exist', () => {
    expect(ROUTES.map(key).sort()).toEqual(Object.keys(CONTRACT).sort());
  });

  it.each(ROUTES.map((r) => [key(r), r] as const))('%s answers under the member the contract names', (_k, r) => {
    for (const res of r.responses) {
      const got = members(res);
      expect(got.sort()).toEqual([...CONTRACT[key(r)]!].sort());
      const p = (res.schema as Schema).properties;
      if (!p) continue;
      // Every member is required, and the resource member repeats `data`'s schema (but on link,
      // whose data is {id, linked_record_id} beside the whole document: SPEC.md §4 Documents).
      expect([...((res.schema as Schema).required ?? [])].sort()).toEqual(Object.keys(p).sort());
      if (r.path.endsWith('/link')) continue;
      for (const m of got.filter((x) => x !== 'pagination' && x !== 'action')) expect(p[m]).toEqual(p.data);
    }
  });

  it('action routes carry {type, status: completed} with the type SPEC names', () => {
    const actions = ROUTES.filter((r) => CONTRACT[key(r)]!.includes('action'));
    expect(actions.length).toBeGreaterThan(0);
    for (const r of actions) {
      const verb = r.path.split('/').pop()!;
      const a = (r.responses[0]!.schema as Schema).properties!.action!;
      expect(a.properties!.type!.enum).toEqual([ACTION_TYPES[verb]]);
      expect(a.properties!.status!.enum).toEqual(['completed']);
    }
  });
});

describe('outbound event types an endpoint can subscribe to (SPEC.md §6, API-DECISIONS §9)', () => {
  it('are exactly the active outbound types of SPEC.md, webhook.test included', () => {
    // SPEC.md §6 "Outbound webhooks", status active; planned types are not accepted.
    // API-DECISIONS §11 adds invoice.voided.
    // API-DECISIONS §15 activates api_key.revoked (§13); endpoints created without event_types keep the old default list.
    const before15 = ['webhook.test', 'invoice.posted', 'payment.posted', 'invoice.paid', 'invoice.partially_paid', 'invoice.voided'];
    const active = [...before15, 'api_key.revoked'];
    expect([...WEBHOOK_EVENT_TYPES].sort()).toEqual(active.sort());
    expect([...WEBHOOK_DEFAULT_EVENT_TYPES].sort()).toEqual(before15.sort());
  });
});
