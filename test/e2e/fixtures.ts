/**
 * One small factory per resource, keyed by the collection path of the route table: what a route
 * with an {id} under that collection needs to exist. The isolation matrix fails for a route whose
 * collection is missing here, so a new resource cannot be forgotten.
 */
import { type Api, createCustomer, createDraftInvoice, createOpenInvoice, expectStatus, paymentBody, uid } from './receivables.helpers';

export interface Fixture {
  /** Creates one record with the client's key and returns its id (the {id} of the routes below it). */
  create(api: Api): Promise<string>;
  /** The other path parameters of routes below the record (e.g. {delivery_id}), made with the same key. */
  params?(api: Api, id: string): Promise<Record<string, string>>;
}

const lines = [{ description: 'Fixture work', quantity: 2, unit_amount_cents: 1250 }];

async function createVendor(api: Api): Promise<string> {
  const r = await api('POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: 'Fixture vendor' });
  expectStatus(r, 201);
  return r.json.data.id as string;
}

async function createBill(api: Api, vendorId: string, status: 'draft' | 'posted'): Promise<string> {
  const r = await api('POST', '/api/v1/bills', {
    external_bill_id: uid('bill'),
    vendor_id: vendorId,
    bill_number: 'B-1',
    issue_date: '2026-03-01',
    due_date: '2026-03-31',
    line_items: lines,
    ...(status === 'draft' ? { status: 'draft' } : {}),
  });
  expectStatus(r, 201);
  return r.json.data.id as string;
}

async function createShare(api: Api): Promise<{ id: string; render_id: string }> {
  const inv = await createOpenInvoice(api, await createCustomer(api), 7500);
  const r = await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: inv.id });
  expectStatus(r, 201);
  return r.json.data as { id: string; render_id: string };
}

export const FIXTURES: Record<string, Fixture> = {
  '/api/v1/customers': { create: (api) => createCustomer(api, 'Fixture customer') },
  /** A draft: posting it would succeed, so a leak across scopes would show. */
  '/api/v1/invoices': { create: async (api) => (await createDraftInvoice(api, await createCustomer(api), 5000)).id as string },
  '/api/v1/payments': {
    create: async (api) => {
      const inv = await createOpenInvoice(api, await createCustomer(api), 10_000);
      const r = await api('POST', '/api/v1/payments', paymentBody(inv.id, 4000));
      expectStatus(r, 201);
      return r.json.data.id as string;
    },
  },
  /** A draft: draft → sent would succeed. */
  '/api/v1/estimates': {
    create: async (api) => {
      const customerId = await createCustomer(api);
      const r = await api('POST', '/api/v1/estimates', { external_estimate_id: uid('est'), customer_id: customerId, issue_date: '2026-03-01', line_items: lines });
      expectStatus(r, 201);
      return r.json.data.id as string;
    },
  },
  '/api/v1/processor-payouts': {
    create: async (api) => {
      const r = await api('POST', '/api/v1/processor-payouts', {
        external_payout_id: uid('po'),
        processor: 'stripe',
        payout_date: '2026-03-10',
        gross_cents: 10_000,
        fee_cents: 300,
        net_cents: 9700,
      });
      expectStatus(r, 201);
      return r.json.data.id as string;
    },
  },
  '/api/v1/vendors': { create: createVendor },
  /** An endpoint at a public documentation address (TEST-NET-1): acceptable in test and live mode. */
  '/api/v1/webhook-endpoints': {
    create: async (api) => {
      const r = await api('POST', '/api/v1/webhook-endpoints', { url: 'https://192.0.2.10/hook', event_types: ['invoice.partially_paid'] });
      expectStatus(r, 201);
      return r.json.data.id as string;
    },
    /** A webhook.test delivery of the endpoint (…/deliveries/{delivery_id}/retry). */
    params: async (api, id) => {
      const r = await api('POST', `/api/v1/webhook-endpoints/${id}/test`);
      expectStatus(r, 201);
      return { delivery_id: r.json.data.id as string };
    },
  },
  /** A small text document, uploaded as multipart/form-data. */
  '/api/v1/documents': {
    create: async (api) => {
      const boundary = `fixture${uid('b')}`;
      const body = [
        `--${boundary}`,
        'Content-Disposition: form-data; name="document_type"',
        '',
        'receipt',
        `--${boundary}`,
        'Content-Disposition: form-data; name="file"; filename="fixture.txt"',
        'Content-Type: text/plain',
        '',
        'Fixture receipt',
        `--${boundary}--`,
        '',
      ].join('\r\n');
      const r = await api('POST', '/api/v1/documents', body, { 'content-type': `multipart/form-data; boundary=${boundary}` });
      expectStatus(r, 201);
      return r.json.data.id as string;
    },
  },
  /** An active share of an open invoice: revoking it would succeed, so a leak across scopes would show. */
  '/api/v1/document-shares': { create: async (api) => (await createShare(api)).id },
  '/api/v1/document-renders': { create: async (api) => (await createShare(api)).render_id },
  /** The organization's A/R account (accounts come from the chart, one set per organization and environment). */
  '/api/v1/accounts': {
    create: async (api) => {
      const r = await api('GET', '/api/v1/accounts');
      expectStatus(r, 200);
      return (r.json.data as { id: string; code: string }[]).find((a) => a.code === '1100')!.id;
    },
  },
  /** A draft bill: posting or reversing it would succeed, so a leak across scopes would show. */
  '/api/v1/bills': { create: async (api) => createBill(api, await createVendor(api), 'draft') },
  /** A ready payment of a posted bill: posting it would succeed. */
  '/api/v1/vendor-payments': {
    create: async (api) => {
      const vendorId = await createVendor(api);
      const billId = await createBill(api, vendorId, 'posted');
      const r = await api('POST', '/api/v1/vendor-payments', {
        external_vendor_payment_id: uid('vp'),
        vendor_id: vendorId,
        amount_cents: 700,
        payment_date: '2026-03-10',
        allocations: [{ bill_id: billId, amount_cents: 700 }],
        status: 'ready',
      });
      expectStatus(r, 201);
      return r.json.data.id as string;
    },
  },
  /** For GET /events/{id} (API-DECISIONS §4) when it comes: a stored-only event. */
  '/api/v1/events': {
    create: async (api) => {
      const r = await api('POST', '/api/v1/events', { event_type: 'customer.created', external_event_id: uid('evt'), payload: { id: uid('cus') } });
      expectStatus(r, 201);
      return r.json.data.event_id as string;
    },
  },
};

/** The collection a path belongs to: everything before its first path parameter. */
export function collectionOf(path: string): string {
  const i = path.indexOf('/{');
  return i < 0 ? path : path.slice(0, i);
}

/** The names of a route path's parameters: /a/{id}/b → ['id']. */
export function paramsOf(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}
