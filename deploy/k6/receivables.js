// k6 load scenario for the ledger slice (k6 >= 0.45): bill a customer and collect.
//
//   k6 run -e API_KEY=svc_test_... deploy/k6/receivables.js
//
// One iteration = create a draft invoice, post it (Dr A/R / Cr Revenue), pay half by POST
// /payments and the rest by a payment.received event, then read the invoice back and check it is
// paid: 5 requests, 3 of them ledger postings. Open model (constant-arrival-rate).
//
// Environment (all optional except API_KEY):
//   BASE_URL           gateway URL                                    http://127.0.0.1:8080
//   API_KEY            bearer API key (npm run admin -- bootstrap)     required
//   DURATION           how long the scenario runs                      1m
//   RATE               iterations (invoices billed and collected) /s   8
//   PRE_ALLOCATED_VUS  VUs allocated up front                          20
//   MAX_VUS            VUs the scenario may grow to                    200
//   P99_MS             p(99) latency threshold per request, ms         1000
//
// The default 8 iterations/s = 40 requests/s stays under the gateway's default per-key limit
// (RATE_LIMIT_RPS=50); raise RATE_LIMIT_RPS / RATE_LIMIT_BURST on the gateway before raising RATE.

import http from 'k6/http';
import { check, fail } from 'k6';
import exec from 'k6/execution';
import { BASE_URL, envInt, headersFor, requireKey } from './lib.js';

const API_KEY = requireKey('receivables.js');

const PRE_ALLOCATED_VUS = envInt('PRE_ALLOCATED_VUS', 20);
const HEADERS = headersFor(API_KEY);

export const options = {
  scenarios: {
    bill_and_collect: {
      executor: 'constant-arrival-rate',
      exec: 'billAndCollect',
      rate: envInt('RATE', 8),
      timeUnit: '1s',
      duration: __ENV.DURATION || '1m',
      preAllocatedVUs: PRE_ALLOCATED_VUS,
      maxVUs: Math.max(envInt('MAX_VUS', 200), PRE_ALLOCATED_VUS),
    },
  },
  thresholds: {
    http_req_failed: ['rate<0.01'],
    checks: ['rate>0.99'],
    [`http_req_duration{name:post-invoice}`]: [`p(99)<${envInt('P99_MS', 1000)}`],
    [`http_req_duration{name:create-payment}`]: [`p(99)<${envInt('P99_MS', 1000)}`],
    [`http_req_duration{name:payment-event}`]: [`p(99)<${envInt('P99_MS', 1000)}`],
  },
};

export function setup() {
  const run = `${Date.now()}`;
  const res = http.post(`${BASE_URL}/api/v1/customers`, JSON.stringify({ external_customer_id: `k6-${run}`, name: 'k6 customer' }), { headers: HEADERS });
  if (res.status !== 201) fail(`creating the customer failed: ${res.status} ${res.body}`);
  return { run, customerId: res.json('data.id') };
}

function post(path, body, name) {
  return http.post(`${BASE_URL}${path}`, body === undefined ? null : JSON.stringify(body), { headers: HEADERS, tags: { name } });
}

export function billAndCollect(data) {
  const n = `${data.run}-${exec.scenario.iterationInTest}`;
  const total = 10_000 + (exec.scenario.iterationInTest % 5_000);
  const created = post(
    '/api/v1/invoices',
    {
      external_invoice_id: `k6-inv-${n}`,
      customer_id: data.customerId,
      invoice_number: `K6-${n}`,
      issue_date: '2026-11-01',
      due_date: '2026-12-01',
      line_items: [{ description: 'Load test', quantity: 1, unit_amount_cents: total }],
    },
    'create-invoice',
  );
  if (!check(created, { 'invoice created (201)': (r) => r.status === 201 })) return;
  const invoiceId = created.json('data.id');

  const posted = post(`/api/v1/invoices/${invoiceId}/post`, undefined, 'post-invoice');
  if (!check(posted, { 'invoice posted (open)': (r) => r.status === 200 && r.json('data.status') === 'open' })) return;

  const half = Math.floor(total / 2);
  const paid = post('/api/v1/payments', { external_payment_id: `k6-pay-${n}`, invoice_id: invoiceId, amount_cents: half, received_at: '2026-11-05' }, 'create-payment');
  check(paid, { 'payment recorded (201)': (r) => r.status === 201 });

  const event = post(
    '/api/v1/events',
    {
      event_type: 'payment.received',
      external_event_id: `k6-evt-${n}`,
      payload: { external_payment_id: `k6-evt-pay-${n}`, external_invoice_id: `k6-inv-${n}`, amount_cents: total - half, received_at: '2026-11-06T12:00:00Z', processor: 'k6' },
    },
    'payment-event',
  );
  check(event, { 'event processed': (r) => r.status === 201 && r.json('data.status') === 'processed' });

  const read = http.get(`${BASE_URL}/api/v1/invoices/${invoiceId}`, { headers: HEADERS, tags: { name: 'get-invoice' } });
  check(read, { 'invoice paid, nothing due': (r) => r.json('data.status') === 'paid' && r.json('data.balance_due_cents') === 0 });
}
