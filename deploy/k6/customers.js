// k6 load scenarios against the gateway's customers routes (k6 >= 0.45).
//
//   k6 run -e API_KEY=svc_test_... deploy/k6/customers.js
//
// Environment (all optional except API_KEY):
//   BASE_URL           gateway URL                                    http://127.0.0.1:8080
//   API_KEY            bearer API key (npm run admin -- bootstrap)     required
//   DURATION           how long each scenario runs                     1m
//   READ_RATE          GET /api/v1/customers/{id} per second           30
//   WRITE_RATE         POST /api/v1/customers per second               10
//   PRE_ALLOCATED_VUS  VUs allocated up front, per scenario            20
//   MAX_VUS            VUs a scenario may grow to, per scenario        200
//   SEED_CUSTOMERS     customers setup() creates for the reads         50
//   P99_MS             p(99) latency threshold, ms                     500
//
// The defaults (40 requests/s on one key) stay under the gateway's default per-key rate limit
// (RATE_LIMIT_RPS=50); raise RATE_LIMIT_RPS / RATE_LIMIT_BURST on the gateway before raising the rates.

import http from 'k6/http';
import { check, fail } from 'k6';
import exec from 'k6/execution';
import { BASE_URL, envInt, headersFor, requireKey } from './lib.js';

const API_KEY = requireKey('customers.js');

const DURATION = __ENV.DURATION || '1m';
const READ_RATE = envInt('READ_RATE', 30);
const WRITE_RATE = envInt('WRITE_RATE', 10);
const PRE_ALLOCATED_VUS = envInt('PRE_ALLOCATED_VUS', 20);
const MAX_VUS = Math.max(envInt('MAX_VUS', 200), PRE_ALLOCATED_VUS);
const SEED_CUSTOMERS = Math.max(envInt('SEED_CUSTOMERS', 50), 1);
const P99_MS = envInt('P99_MS', 500);

const HEADERS = headersFor(API_KEY);

function arrivalRate(rate, fn) {
  return {
    executor: 'constant-arrival-rate',
    exec: fn,
    rate,
    timeUnit: '1s',
    duration: DURATION,
    preAllocatedVUs: PRE_ALLOCATED_VUS,
    maxVUs: MAX_VUS,
  };
}

const scenarios = {};
if (READ_RATE > 0) scenarios.read = arrivalRate(READ_RATE, 'read');
if (WRITE_RATE > 0) scenarios.write = arrivalRate(WRITE_RATE, 'write');

export const options = {
  scenarios,
  thresholds: {
    // Failed = status >= 400 or a transport error (setup's requests included).
    http_req_failed: ['rate<0.01'],
    checks: ['rate>0.99'],
    'http_req_duration{scenario:read}': [`p(99)<${P99_MS}`],
    'http_req_duration{scenario:write}': [`p(99)<${P99_MS}`],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
};

function createCustomer(externalId, tags) {
  return http.post(`${BASE_URL}/api/v1/customers`, JSON.stringify({ external_customer_id: externalId, name: `Load test ${externalId}`, email: `${externalId}@example.com` }), {
    headers: HEADERS,
    tags: Object.assign({ name: 'POST /api/v1/customers' }, tags),
  });
}

/** Checks the key and creates the customers the read scenario fetches. Runs once. */
export function setup() {
  const auth = http.get(`${BASE_URL}/api/v1/auth/check`, { headers: HEADERS, tags: { name: 'GET /api/v1/auth/check' } });
  if (auth.status !== 200) fail(`auth check failed: ${auth.status} ${auth.body}`);

  // One id per run, so that runs against the same database never collide on external ids.
  const runId = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`;
  const ids = [];
  for (let i = 0; i < SEED_CUSTOMERS; i++) {
    const res = createCustomer(`k6-seed-${runId}-${i}`, { phase: 'setup' });
    if (res.status !== 201 && res.status !== 200) fail(`creating seed customer ${i} failed: ${res.status} ${res.body}`);
    ids.push(res.json('customer.id'));
  }
  return { runId, ids };
}

/** Scenario `read`: one customer by id, picked at random from those setup() created. */
export function read(data) {
  const id = data.ids[Math.floor(Math.random() * data.ids.length)];
  const res = http.get(`${BASE_URL}/api/v1/customers/${id}`, { headers: HEADERS, tags: { name: 'GET /api/v1/customers/{id}' } });
  check(res, {
    'read: status 200': (r) => r.status === 200,
    'read: the customer asked for': (r) => r.status === 200 && r.json('customer.id') === id,
  });
}

/** Scenario `write`: a new customer with an external id no other iteration uses. */
export function write(data) {
  const externalId = `k6-${data.runId}-${exec.scenario.iterationInTest}`;
  const res = createCustomer(externalId);
  check(res, {
    'write: status 201': (r) => r.status === 201,
    'write: the customer sent': (r) => r.status === 201 && r.json('customer.external_customer_id') === externalId,
  });
}
