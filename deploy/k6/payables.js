// k6 load scenario for payables (k6 >= 0.45): bill from a vendor and pay it.
//
//   k6 run -e API_KEY=svc_test_... deploy/k6/payables.js
//
// One iteration = create a bill for one of the vendors setup() created (posted on create: Dr
// expense / Cr A/P), pay part of it with a vendor payment, pay the rest with a second one, then
// read the bill back and check nothing is open: 4 requests, 3 of them ledger postings. Open model
// (constant-arrival-rate).
//
// Environment (all optional except API_KEY):
//   BASE_URL           gateway URL                                    http://127.0.0.1:8080
//   API_KEY            bearer API key (npm run admin -- bootstrap)     required
//   DURATION           how long the scenario runs                      1m
//   RATE               iterations (bills booked and paid) /s           10
//   PRE_ALLOCATED_VUS  VUs allocated up front                          20
//   MAX_VUS            VUs the scenario may grow to                    200
//   SEED_VENDORS       vendors setup() creates                         10
//   P99_MS             p(99) latency threshold per request, ms         1000
//
// The default 10 iterations/s = 40 requests/s stays under the gateway's default per-key limit
// (RATE_LIMIT_RPS=50); raise RATE_LIMIT_RPS / RATE_LIMIT_BURST on the gateway before raising RATE.

import http from 'k6/http';
import { check, fail } from 'k6';
import exec from 'k6/execution';
import { BASE_URL, envInt, headersFor, requireKey } from './lib.js';

const API_KEY = requireKey('payables.js');

const PRE_ALLOCATED_VUS = envInt('PRE_ALLOCATED_VUS', 20);
const SEED_VENDORS = Math.max(envInt('SEED_VENDORS', 10), 1);
const P99_MS = envInt('P99_MS', 1000);
const HEADERS = headersFor(API_KEY);

export const options = {
  scenarios: {
    bill_and_pay: {
      executor: 'constant-arrival-rate',
      exec: 'billAndPay',
      rate: envInt('RATE', 10),
      timeUnit: '1s',
      duration: __ENV.DURATION || '1m',
      preAllocatedVUs: PRE_ALLOCATED_VUS,
      maxVUs: Math.max(envInt('MAX_VUS', 200), PRE_ALLOCATED_VUS),
    },
  },
  thresholds: {
    http_req_failed: ['rate<0.01'],
    checks: ['rate>0.99'],
    [`http_req_duration{name:create-bill}`]: [`p(99)<${P99_MS}`],
    [`http_req_duration{name:create-vendor-payment}`]: [`p(99)<${P99_MS}`],
    [`http_req_duration{name:get-bill}`]: [`p(99)<${P99_MS}`],
  },
};

function post(path, body, name) {
  return http.post(`${BASE_URL}${path}`, JSON.stringify(body), { headers: HEADERS, tags: { name } });
}

/** The key works, and the vendors the bills are for exist. Runs once. */
export function setup() {
  const auth = http.get(`${BASE_URL}/api/v1/auth/check`, { headers: HEADERS, tags: { name: 'auth-check' } });
  if (auth.status !== 200) fail(`auth check failed: ${auth.status} ${auth.body}`);
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`;
  const vendors = [];
  for (let i = 0; i < SEED_VENDORS; i++) {
    const res = post('/api/v1/vendors', { external_vendor_id: `k6-${run}-${i}`, display_name: `k6 vendor ${i}`, vendor_type: 'business' }, 'setup');
    if (res.status !== 201) fail(`creating vendor ${i} failed: ${res.status} ${res.body}`);
    vendors.push(res.json('data.id'));
  }
  return { run, vendors };
}

export function billAndPay(data) {
  const i = exec.scenario.iterationInTest;
  const n = `${data.run}-${i}`;
  const vendorId = data.vendors[i % data.vendors.length];
  const total = 10_000 + (i % 5_000);
  const bill = post(
    '/api/v1/bills',
    {
      external_bill_id: `k6-bill-${n}`,
      vendor_id: vendorId,
      bill_number: `K6B-${n}`,
      issue_date: '2026-11-01',
      due_date: '2026-12-01',
      line_items: [{ description: 'Load test', quantity: 1, unit_amount_cents: total }],
    },
    'create-bill',
  );
  if (!check(bill, { 'bill posted (201)': (r) => r.status === 201 && r.json('data.status') === 'posted' })) return;
  const billId = bill.json('data.id');

  const first = Math.floor(total / 3);
  for (const [k, amount] of [first, total - first].entries()) {
    const paid = post(
      '/api/v1/vendor-payments',
      {
        external_vendor_payment_id: `k6-vp-${n}-${k}`,
        vendor_id: vendorId,
        amount_cents: amount,
        payment_date: '2026-11-05',
        allocations: [{ bill_id: billId, amount_cents: amount }],
      },
      'create-vendor-payment',
    );
    if (!check(paid, { 'vendor payment posted (201)': (r) => r.status === 201 && r.json('data.status') === 'posted' })) return;
  }

  const read = http.get(`${BASE_URL}/api/v1/bills/${billId}`, { headers: HEADERS, tags: { name: 'get-bill' } });
  check(read, { 'bill paid, nothing open': (r) => r.status === 200 && r.json('data.amount_paid_cents') === total && r.json('data.open_balance_cents') === 0 });
}
