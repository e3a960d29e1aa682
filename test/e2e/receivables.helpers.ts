/** Shared helpers of the receivables e2e tests (invoices, payments, estimates, payouts, events). */
import { randomUUID } from 'node:crypto';
import { compileBody } from '@acct/contracts';
import { NO_RATE_LIMITS } from '@acct/testing';
import { type E2E, type Keys, bootstrapOrg, client, startE2E } from './harness';

export type Api = ReturnType<typeof client>;
export type Res = Awaited<ReturnType<Api>>;
type Validator = ReturnType<typeof compileBody>;

/** Rate limits out of the way: these files send many requests per second on purpose. */
export const E2E_ENV = NO_RATE_LIMITS;

export const uid = (prefix: string): string => `${prefix}-${randomUUID()}`;

/** Status check that prints the body when it fails. */
export function expectStatus(r: Res, status: number): void {
  expect({ status: r.status, body: r.json ?? r.text }).toMatchObject({ status });
}

/** A success body valid against its response schema (ajv errors are printed when not). */
export function expectSchema(validate: Validator, body: unknown): void {
  const ok = validate(body);
  expect({ ok, errors: validate.errors ?? null }).toEqual({ ok: true, errors: null });
}

/**
 * Calls that answer a response's `data`: `get` after a 200 (and its schema, given `validate`), `ok`
 * for any method, throwing with the body on a status of 300 or more. `api` is read at each call, so
 * a test can pass the client its `beforeAll` sets.
 */
export function dataCalls(api: () => Api) {
  const get = async (p: string, validate?: Validator): Promise<any> => {
    const r = await api()('GET', p);
    expectStatus(r, 200);
    if (validate) expectSchema(validate, r.json);
    return r.json.data;
  };
  const ok = async (method: string, p: string, body?: unknown): Promise<any> => {
    const r = await api()(method, p, body);
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json.data;
  };
  return { get, ok };
}

/** The error envelope: status, code, details array, message, request_id = Request-Id header. */
export function expectError(r: Res, status: number, code: string): void {
  expect({ status: r.status, code: r.json?.error?.code, body: r.json ?? r.text }).toMatchObject({ status, code });
  expect(Array.isArray(r.json.error.details)).toBe(true);
  expect(typeof r.json.error.message).toBe('string');
  const rid = r.headers.get('request-id');
  expect(rid).toBeTruthy();
  expect(r.json.error.request_id).toBe(rid);
}

export function expectReplayed(r: Res): void {
  expect(r.headers.get('idempotent-replayed')).toBe('true');
}

export function expectNotReplayed(r: Res): void {
  expect(r.headers.get('idempotent-replayed')).toBeNull();
}

export async function createCustomer(api: Api, name = 'Customer'): Promise<string> {
  const r = await api('POST', '/api/v1/customers', { external_customer_id: uid('cus'), name, email: 'billing@example.com' });
  expectStatus(r, 201);
  return r.json.data.id as string;
}

export interface LineIn {
  description: string;
  quantity: number;
  unit_amount_cents: number;
}

export function invoiceBody(customerId: string, lines: LineIn[], over: Record<string, unknown> = {}): Record<string, unknown> {
  const ext = uid('inv');
  return {
    external_invoice_id: ext,
    customer_id: customerId,
    invoice_number: `INV-${ext.slice(4, 12)}`,
    issue_date: '2026-03-01',
    due_date: '2026-03-31',
    line_items: lines,
    ...over,
  };
}

/** A draft invoice with one line of `totalCents`. */
export async function createDraftInvoice(api: Api, customerId: string, totalCents: number, over: Record<string, unknown> = {}): Promise<any> {
  const r = await api('POST', '/api/v1/invoices', invoiceBody(customerId, [{ description: 'Work', quantity: 1, unit_amount_cents: totalCents }], over));
  expectStatus(r, 201);
  return r.json.data;
}

/** A posted (open) invoice of `totalCents`. */
export async function createOpenInvoice(api: Api, customerId: string, totalCents: number, over: Record<string, unknown> = {}): Promise<any> {
  const inv = await createDraftInvoice(api, customerId, totalCents, over);
  const p = await api('POST', `/api/v1/invoices/${inv.id}/post`);
  expectStatus(p, 200);
  expect(p.json.data.status).toBe('open');
  return p.json.data;
}

export async function getInvoice(api: Api, id: string): Promise<any> {
  const r = await api('GET', `/api/v1/invoices/${id}`);
  expectStatus(r, 200);
  return r.json.data;
}

export function paymentBody(invoiceId: string, amountCents: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { external_payment_id: uid('pay'), invoice_id: invoiceId, amount_cents: amountCents, received_at: '2026-03-05', ...over };
}

/** A Stripe payout of `grossCents` less `feeCents` on `date`. */
export function payoutBody(date: string, grossCents: number, feeCents: number): Record<string, unknown> {
  return { external_payout_id: uid('po'), processor: 'stripe', payout_date: date, gross_cents: grossCents, fee_cents: feeCents, net_cents: grossCents - feeCents };
}

/** A bill of one line of `cents` (the statements and reports tests buy from vendors too). */
export function billBody(vendorId: string, cents: number, issue: string, due: string, billNumber = 'B'): Record<string, unknown> {
  return {
    external_bill_id: uid('bill'),
    vendor_id: vendorId,
    bill_number: billNumber,
    issue_date: issue,
    due_date: due,
    line_items: [{ description: 'Work', quantity: 1, unit_amount_cents: cents }],
  };
}

/** A vendor payment of `cents` on `date`, all of it to one bill. */
export function vendorPaymentBody(vendorId: string, billId: string, cents: number, date: string): Record<string, unknown> {
  return {
    external_vendor_payment_id: uid('vp'),
    vendor_id: vendorId,
    amount_cents: cents,
    payment_date: date,
    allocations: [{ bill_id: billId, amount_cents: cents }],
  };
}

/** YYYY-MM-DD of a Date in UTC, plus `days`. */
export function utcDate(d: Date, days = 0): string {
  return new Date(d.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}

export interface ReceivablesE2E {
  e2e: E2E;
  keys: Keys;
  other: Keys;
  api: Api;
  otherApi: Api;
}

/** One stack per test file, with two organizations and a client for each test key. */
export async function startReceivablesE2E(orgName: string): Promise<ReceivablesE2E> {
  const e2e = await startE2E(E2E_ENV);
  const keys = await bootstrapOrg(e2e.databaseUrl, orgName);
  const other = await bootstrapOrg(e2e.databaseUrl, 'Other org');
  return { e2e, keys, other, api: client(e2e.base, keys.test_key), otherApi: client(e2e.base, other.test_key) };
}
