/**
 * The scenarios of `npm run bench` (bench.ts describes each), run against one started stack and
 * bootstrapped organization; each appends its rows as it finishes.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import Stripe from 'stripe';
import { accountId } from '@acct/ledger';
import { createOne, drive, postEach, postToEach } from './drive';
import { BILLS, CONNECTIONS, DURATION_S, INVOICES, LAG_RATE, LIST_ROWS, REPORT_LINES, SCENARIOS, WARMUP_S } from './env';
import { reportingLag } from './lag';
import { seedListCustomers } from './list-seed';
import { explainReports, seedReportingLines } from './report-seed';
import type { Row } from './summary';
import { WebhookLag } from './webhook-lag';

/** The running stack and organization the scenarios drive. */
export interface Target {
  /** The gateway's URL. */
  url: string;
  headers: Record<string, string>;
  /** This run's id: the external ids of the records made are unique per run. */
  id: string;
  databaseUrl: string;
  organizationId: string;
  /** A customer made before the scenarios: read by get-customer, billed by the invoices. */
  customerId: string;
}

/** Draft invoices made through the API with `parallel` requests in flight; returns their ids. */
export async function createDrafts(url: string, headers: Record<string, string>, customerId: string, runId: string, count: number, parallel: number): Promise<string[]> {
  const ids: string[] = [];
  let made = 0;
  const worker = async () => {
    while (made < count) {
      const n = made++;
      const res = await fetch(`${url}/api/v1/invoices`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          external_invoice_id: `bench-${runId}-inv-${n}`,
          customer_id: customerId,
          invoice_number: `B-${n}`,
          issue_date: '2026-11-01',
          due_date: '2026-12-01',
          line_items: [{ description: 'Bench work', quantity: 1.25, unit_amount_cents: 10_000 + n }],
        }),
      });
      if (res.status !== 201) throw new Error(`creating a draft invoice failed: ${res.status} ${await res.text()}`);
      ids.push(((await res.json()) as { data: { id: string } }).data.id);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return ids;
}

/** get-customer and create-customer, after a warm-up of both (not reported). */
export async function customerScenarios({ url, headers, id, customerId }: Target, rows: Row[]): Promise<void> {
  const getUrl = `${url}/api/v1/customers/${customerId}`;
  const check = await fetch(getUrl, { headers });
  if (check.status !== 200) throw new Error(`reading the seed customer failed: ${check.status} ${await check.text()}`);
  await check.arrayBuffer();

  const getOpts: autocannon.Options = { url: getUrl, connections: CONNECTIONS, method: 'GET', headers };
  const postOpts: autocannon.Options = {
    url,
    connections: CONNECTIONS,
    method: 'POST',
    headers,
    requests: postEach('/api/v1/customers', (n) => ({ external_customer_id: `bench-${id}-${n}`, name: `Bench customer ${n}`, email: `c${n}@example.com` })),
  };

  if (WARMUP_S > 0) {
    process.stdout.write(`warm-up: ${WARMUP_S} s of each scenario (not reported)\n`);
    await drive({ ...getOpts, duration: WARMUP_S });
    await drive({ ...postOpts, duration: WARMUP_S });
  }

  process.stdout.write(`running: ${DURATION_S} s per scenario, ${CONNECTIONS} connections\n`);
  if (SCENARIOS.has('get-customer'))
    rows.push({ scenario: 'get-customer', route: 'GET /api/v1/customers/{id}', ...(await drive({ ...getOpts, duration: DURATION_S, title: 'get-customer' })) });
  if (SCENARIOS.has('create-customer'))
    rows.push({ scenario: 'create-customer', route: 'POST /api/v1/customers', ...(await drive({ ...postOpts, duration: DURATION_S, title: 'create-customer' })) });
}

/** post-invoice (each draft posted once under load) and post-invoice-paced; returns their lag reports. */
export async function invoicePostingScenarios({ url, headers, id, customerId, databaseUrl, organizationId }: Target, rows: Row[]): Promise<string[]> {
  // Invoice posting (a ledger write: lock, journal entry, outbox rows, JetStream publish):
  // drafts are made first, then each one is posted exactly once under load.
  let webhookLag = '';
  let pacedLag = '';
  if (SCENARIOS.has('post-invoice')) {
    process.stdout.write(`creating ${INVOICES} draft invoices for the post-invoice scenario\n`);
    const drafts = await createDrafts(url, headers, customerId, id, INVOICES, CONNECTIONS);
    const postInvoiceOpts: autocannon.Options = {
      url,
      connections: CONNECTIONS,
      headers,
      amount: drafts.length,
      requests: postToEach(drafts, (d) => `/api/v1/invoices/${d}/post`),
    };
    // Each posting's invoice.posted webhook goes to a receiver in this process: posting → webhook received.
    const hooks = new WebhookLag();
    await hooks.start(url, headers);
    rows.push({ scenario: 'post-invoice', route: 'POST /api/v1/invoices/{id}/post', ...(await drive({ ...postInvoiceOpts, title: 'post-invoice' })) });
    webhookLag = await hooks.report(databaseUrl, organizationId, drafts);
  }

  // The same posting at a steady BENCH_LAG_RATE (below what the machine can take): the lag from
  // posting to reporting and to the webhook receiver at that rate, not behind a saturating burst.
  if (SCENARIOS.has('post-invoice-paced')) {
    const count = LAG_RATE * DURATION_S;
    process.stdout.write(`creating ${count} draft invoices for the post-invoice-paced scenario (${LAG_RATE}/s)\n`);
    const drafts = await createDrafts(url, headers, customerId, `${id}-paced`, count, CONNECTIONS);
    const hooks = new WebhookLag();
    await hooks.start(url, headers);
    const opts: autocannon.Options = {
      url,
      connections: CONNECTIONS,
      headers,
      amount: drafts.length,
      overallRate: LAG_RATE,
      requests: postToEach(drafts, (d) => `/api/v1/invoices/${d}/post`),
    };
    rows.push({ scenario: 'post-invoice-paced', route: `POST /api/v1/invoices/{id}/post at ${LAG_RATE}/s`, ...(await drive({ ...opts, title: 'post-invoice-paced' })) });
    const toReporting = await reportingLag(databaseUrl, organizationId, { sourceIds: drafts });
    pacedLag = [`at ${LAG_RATE} posts/s: ${toReporting}`, `at ${LAG_RATE} posts/s: ${await hooks.report(databaseUrl, organizationId, drafts)}`].join('\n');
  }
  return [webhookLag, pacedLag];
}

/** event-api and stripe-hook. */
export async function inboundEventScenarios({ url, headers, id }: Target, rows: Row[]): Promise<void> {
  // Inbound events, stored only: POST /events (key, JSON, validation) beside the Stripe hook
  // (no key, raw bytes forwarded, signature checked over them, then the same store).
  if (SCENARIOS.has('event-api')) {
    const opts: autocannon.Options = {
      ...steady({ url, headers }),
      requests: postEach('/api/v1/events', (n) => ({ event_type: 'customer.created', external_event_id: `bench-${id}-ev-${n}`, payload: { id: `cus_${n}` } })),
    };
    rows.push({ scenario: 'event-api', route: 'POST /api/v1/events', ...(await drive({ ...opts, title: 'event-api' })) });
  }
  if (SCENARIOS.has('stripe-hook')) {
    const secret = `whsec_${randomBytes(24).toString('base64url')}`;
    const put = await fetch(`${url}/api/v1/settings/payment-processor`, { method: 'PUT', headers, body: JSON.stringify({ provider: 'stripe', signing_secret: secret }) });
    if (put.status !== 200) throw new Error(`configuring the payment processor failed: ${put.status} ${await put.text()}`);
    const hookPath = ((await put.json()) as { data: { webhook_url: string } }).data.webhook_url;
    const stripe = new Stripe('sk_test_unused');
    let hookNo = 0;
    const opts: autocannon.Options = {
      url,
      connections: CONNECTIONS,
      duration: DURATION_S,
      requests: [
        {
          method: 'POST',
          path: hookPath,
          setupRequest: (req) => {
            const body = JSON.stringify({
              id: `evt_bench_${id}_${++hookNo}`,
              object: 'event',
              type: 'customer.created',
              created: 1_790_000_000,
              data: { object: { id: `cus_${hookNo}` } },
            });
            const signature = stripe.webhooks.generateTestHeaderString({ payload: body, secret });
            return { ...req, headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body };
          },
        },
      ],
    };
    rows.push({ scenario: 'stripe-hook', route: 'POST /hooks/stripe/{source_id}', ...(await drive({ ...opts, title: 'stripe-hook' })) });
  }
}

/** reports: a large projection seeded, then each report and ledger read. */
export async function reportScenarios({ url, headers, databaseUrl, organizationId }: Target, rows: Row[]): Promise<void> {
  // Reports over a large projection: seeded straight into the reporting schema, read through the gateway.
  if (SCENARIOS.has('reports')) {
    const ids = Object.fromEntries(['1000', '1010', '1100', '1200', '2000', '4000', '5000', '5200'].map((c) => [c, accountId(organizationId, 'test', c)]));
    process.stdout.write(`seeding ${REPORT_LINES} journal lines into the reporting projection\n`);
    const ms = await seedReportingLines(databaseUrl, organizationId, ids, REPORT_LINES);
    process.stdout.write(`seeded in ${(ms / 1000).toFixed(1)} s\n`);
    process.stdout.write(`${await explainReports(databaseUrl, organizationId)}\n`);
    const reads: [string, string][] = [
      ['report-summary', '/api/v1/reports/summary?from=2024-01-01&to=2024-12-31'],
      ['report-ar', '/api/v1/reports/accounts-receivable?as_of=2025-06-30'],
      ['report-ap', '/api/v1/reports/accounts-payable?as_of=2025-06-30'],
      ['report-ar-today', '/api/v1/reports/accounts-receivable'],
      ['report-ap-today', '/api/v1/reports/accounts-payable'],
      ['report-1099', '/api/v1/reports/1099-summary?year=2025'],
      ['report-trial-balance', '/api/v1/reports/trial-balance?as_of=2025-06-30'],
      ['accounts', '/api/v1/accounts'],
      ['journal-entries', '/api/v1/journal-entries?source_type=invoice&from=2025-01-01&to=2025-01-31'],
    ];
    for (const [scenario, p] of reads) {
      const opts: autocannon.Options = { url: `${url}${p}`, connections: Math.min(CONNECTIONS, 4), method: 'GET', headers, duration: DURATION_S, title: scenario };
      rows.push({ scenario, route: `GET ${p.split('?')[0]}`, ...(await drive(opts)) });
    }
  }
}

/**
 * lists: BENCH_LIST_ROWS (1,000,000) customers seeded straight into one organization, then the first
 * page against a page 90% deep by starting_after (keyset on the list index: should cost the same),
 * the deepest offset page (offset 100,000, the cap: a scan of that many index entries), a created
 * range and an external-id lookup, each read through the gateway.
 */
export async function listScenarios({ url, headers, databaseUrl, organizationId }: Target, rows: Row[]): Promise<void> {
  if (!SCENARIOS.has('lists')) return;
  process.stdout.write(`seeding ${LIST_ROWS} customers for the list scenarios\n`);
  const depth = Math.floor(LIST_ROWS * 0.9);
  const seeded = await seedListCustomers(databaseUrl, organizationId, LIST_ROWS, depth);
  process.stdout.write(`seeded in ${(seeded.ms / 1000).toFixed(1)} s; the keyset statement ${depth} rows deep:\n${seeded.plan}\n`);
  const reads: [string, string][] = [
    ['list-first-page', '/api/v1/customers?limit=25'],
    ['list-deep-cursor', `/api/v1/customers?limit=25&starting_after=${seeded.deepId}`],
    ['list-deep-ending-before', `/api/v1/customers?limit=25&ending_before=${seeded.deepId}`],
    ['list-offset-100000', '/api/v1/customers?limit=25&offset=100000'],
    [
      'list-created-range',
      `/api/v1/customers?limit=25&created%5Bgte%5D=${new Date(Date.now() - 86_400_000 * 400).toISOString().slice(0, 10)}&created%5Blt%5D=${new Date(Date.now() - 86_400_000 * 399).toISOString().slice(0, 10)}`,
    ],
    ['list-external-id', `/api/v1/customers?external_customer_id=bench-list-${depth}`],
  ];
  for (const [scenario, p] of reads) {
    const opts: autocannon.Options = { url: `${url}${p}`, connections: Math.min(CONNECTIONS, 4), method: 'GET', headers, duration: DURATION_S, title: scenario };
    rows.push({ scenario, route: `GET ${p.split('?')[0]}`, ...(await drive(opts)) });
  }
}

/** create-bill and create-vendor-payment. */
export async function payablesScenarios({ url, headers, id }: Target, rows: Row[]): Promise<void> {
  // Payables: bills posted on create, and vendor payments allocated to posted bills in turn.
  if (!SCENARIOS.has('create-bill') && !SCENARIOS.has('create-vendor-payment')) return;
  const vendorId = await createOne(`${url}/api/v1/vendors`, headers, { external_vendor_id: `bench-vendor-${id}`, display_name: 'Bench vendor', is_1099_eligible: true });
  let billNo = 0;
  const billBody = (cents: number) => ({
    external_bill_id: `bench-${id}-bill-${++billNo}`,
    vendor_id: vendorId,
    bill_number: `VB-${billNo}`,
    issue_date: '2026-11-01',
    due_date: '2026-12-01',
    line_items: [{ description: 'Bench supplies', quantity: 1, unit_amount_cents: cents }],
  });
  if (SCENARIOS.has('create-bill')) {
    const createBillOpts: autocannon.Options = {
      ...steady({ url, headers }),
      requests: postEach('/api/v1/bills', () => billBody(10_000 + billNo)),
    };
    rows.push({ scenario: 'create-bill', route: 'POST /api/v1/bills', ...(await drive({ ...createBillOpts, title: 'create-bill' })) });
  }
  if (SCENARIOS.has('create-vendor-payment')) {
    process.stdout.write(`creating ${BILLS} bills for the create-vendor-payment scenario\n`);
    const bills: string[] = [];
    for (let i = 0; i < BILLS; i++) bills.push(await createOne(`${url}/api/v1/bills`, headers, billBody(100_000_000_000)));
    const payOpts: autocannon.Options = {
      ...steady({ url, headers }),
      requests: postEach('/api/v1/vendor-payments', (n) => ({
        external_vendor_payment_id: `bench-${id}-vp-${n}`,
        vendor_id: vendorId,
        amount_cents: 100,
        payment_date: '2026-11-15',
        allocations: [{ bill_id: bills[n % bills.length], amount_cents: 100 }],
      })),
    };
    rows.push({ scenario: 'create-vendor-payment', route: 'POST /api/v1/vendor-payments', ...(await drive({ ...payOpts, title: 'create-vendor-payment' })) });
  }
}

/** The posting → reporting lag of everything posted, then the lag reports of the scenarios. */
export async function lagReport({ databaseUrl, organizationId }: Target, scenarioLags: string[]): Promise<string> {
  return [await reportingLag(databaseUrl, organizationId), ...scenarioLags].filter(Boolean).join('\n');
}

/** A load of CONNECTIONS connections for DURATION_S seconds, with the organization's key. */
function steady({ url, headers }: Pick<Target, 'url' | 'headers'>): autocannon.Options {
  return { url, connections: CONNECTIONS, headers, duration: DURATION_S };
}
