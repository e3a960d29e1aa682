import { randomUUID } from 'node:crypto';
import type { RpcReply, TrustedContext } from '@acct/contracts';
import type { TestService } from './service';

/** Helpers of the tests that drive payables over its RPC operations: calls and the records they need. */
export function payablesCalls(svc: () => TestService) {
  const call: TestService['call'] = (op, c, over) => svc().call(op, c, over);
  const vendor = async (c: TrustedContext, over: Record<string, unknown> = {}): Promise<string> =>
    (await svc().ok('vendors.create', c, { body: { external_vendor_id: randomUUID(), display_name: 'V', ...over } })).id;
  const billBody = (vendorId: string, totalCents: number, over: Record<string, unknown> = {}) => ({
    external_bill_id: randomUUID(),
    vendor_id: vendorId,
    bill_number: 'B',
    issue_date: '2026-01-10',
    due_date: '2026-02-10',
    line_items: [{ description: 'x', quantity: 1, unit_amount_cents: totalCents }],
    ...over,
  });
  const bill = async (c: TrustedContext, vendorId: string, totalCents: number, over: Record<string, unknown> = {}): Promise<any> =>
    svc().ok('bills.create', c, { body: billBody(vendorId, totalCents, over) });
  const payBody = (vendorId: string, allocations: { bill_id: string; amount_cents: number }[], over: Record<string, unknown> = {}) => ({
    external_vendor_payment_id: randomUUID(),
    vendor_id: vendorId,
    amount_cents: allocations.reduce((s, a) => s + a.amount_cents, 0),
    payment_date: '2026-01-15',
    allocations,
    ...over,
  });
  const pay = (c: TrustedContext, vendorId: string, allocations: { bill_id: string; amount_cents: number }[], over: Record<string, unknown> = {}) =>
    call('vendor_payments.create', c, { body: payBody(vendorId, allocations, over) });
  const payOk = (c: TrustedContext, vendorId: string, allocations: { bill_id: string; amount_cents: number }[], over: Record<string, unknown> = {}) =>
    svc().ok('vendor_payments.create', c, { body: payBody(vendorId, allocations, over) });
  return { call, vendor, bill, billBody, pay, payOk, payBody };
}

/** The code of an error reply, or 'ok'. */
export const outcome = (r: RpcReply<unknown>): string => (r.ok ? 'ok' : r.error.code);
