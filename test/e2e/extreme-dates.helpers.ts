/**
 * Records at both ends of the accepted date range (limits.date_min 1900-01-01, date_max 9999-12-31)
 * on every dated field of every resource, with known amounts: issue 21, where one bill due
 * 9999-12-31 made every A/P report of its organization a 500. The reporting e2e test checks every
 * report to the cent over them; the fuzz seeds them so that its report requests run over them.
 */
import { type Api, createCustomer, createOpenInvoice, expectStatus, paymentBody, uid } from './receivables.helpers';

export const FIRST_DAY = '1900-01-01';
export const LAST_DAY = '9999-12-31';

export interface ExtremeRecords {
  customerId: string;
  vendorId: string;
  invoiceIds: string[];
  billIds: string[];
}

async function created(api: Api, path: string, body: unknown, status = 201): Promise<any> {
  const r = await api('POST', path, body);
  expectStatus(r, status);
  return r.json.data;
}

/**
 * Creates, in the client's organization:
 * - invoices (posted) 3,000 issued and due 1900-01-01 (paid 1,000 on 1900-01-01 and 500 at
 *   1900-01-01T00:00:00-05:00), 5,000 issued 2026-01-10 due 9999-12-31, 7,000 issued and due
 *   9999-12-31 (paid 700 at 9999-12-31T23:59:59Z, and 300 by a payment.received event at
 *   9999-12-31T23:59:59.999+14:00); a draft invoice issued 1900-01-01 due 9999-12-31;
 * - processor payouts 1,000 (fee 10) on 1900-01-01 and 2,000 (fee 20) on 9999-12-31;
 * - estimates issued 1900-01-01 expiring 9999-12-31 and issued 9999-12-31, both accepted and converted
 *   to draft invoices (the second with due_date 9999-12-31: its terms would leave the range);
 * - bills (posted) of a 1099-eligible vendor with a W-9: 10,000 issued and due 1900-01-01, 20,000
 *   issued 1900-01-01 due 9999-12-31, 40,000 issued and due 9999-12-31, 80,000 issued 2026-01-10 due
 *   9999-12-31 (issue 21's bill); vendor payments 1,000 on 1900-01-01 (first bill) and 2,000 on
 *   9999-12-31 (second bill).
 */
export async function createExtremeDateRecords(api: Api): Promise<ExtremeRecords> {
  const customerId = await createCustomer(api, 'Edge customer');
  const i1 = await createOpenInvoice(api, customerId, 3_000, { issue_date: FIRST_DAY, due_date: FIRST_DAY });
  const i2 = await createOpenInvoice(api, customerId, 5_000, { issue_date: '2026-01-10', due_date: LAST_DAY });
  const i3 = await createOpenInvoice(api, customerId, 7_000, { issue_date: LAST_DAY, due_date: LAST_DAY });
  await created(api, '/api/v1/payments', paymentBody(i1.id, 1_000, { received_at: FIRST_DAY }));
  await created(api, '/api/v1/payments', paymentBody(i1.id, 500, { received_at: '1900-01-01T00:00:00-05:00' }));
  await created(api, '/api/v1/payments', paymentBody(i3.id, 700, { received_at: '9999-12-31T23:59:59Z' }));
  const event = await created(api, '/api/v1/events', {
    event_type: 'payment.received',
    external_event_id: uid('evt'),
    payload: {
      external_payment_id: uid('ch'),
      external_invoice_id: i3.external_invoice_id,
      amount_cents: 300,
      currency: 'USD',
      processor: 'stripe',
      received_at: '9999-12-31T23:59:59.999+14:00',
    },
  });
  expect(event.status).toBe('processed');
  const line = [{ description: 'Edge work', quantity: 1, unit_amount_cents: 100 }];
  await created(api, '/api/v1/invoices', {
    external_invoice_id: uid('inv'),
    customer_id: customerId,
    invoice_number: 'EDGE-DRAFT',
    issue_date: FIRST_DAY,
    due_date: LAST_DAY,
    line_items: line,
  });
  for (const [date, gross, fee] of [
    [FIRST_DAY, 1_000, 10],
    [LAST_DAY, 2_000, 20],
  ] as const) {
    await created(api, '/api/v1/processor-payouts', {
      external_payout_id: uid('po'),
      processor: 'stripe',
      payout_date: date,
      gross_cents: gross,
      fee_cents: fee,
      net_cents: gross - fee,
    });
  }
  for (const [issue, expiry, convert] of [
    [FIRST_DAY, LAST_DAY, { issue_date: FIRST_DAY }],
    [LAST_DAY, undefined, { issue_date: LAST_DAY, due_date: LAST_DAY }],
  ] as const) {
    const est = await created(api, '/api/v1/estimates', { external_estimate_id: uid('est'), customer_id: customerId, issue_date: issue, expiry_date: expiry, line_items: line });
    await created(api, `/api/v1/estimates/${est.id}/status`, { status: 'accepted' }, 200);
    await created(api, `/api/v1/estimates/${est.id}/convert`, convert, 200);
  }

  const vendor = await created(api, '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: 'Edge vendor', is_1099_eligible: true, w9_on_file: true });
  const bill = (cents: number, issue: string, due: string) =>
    created(api, '/api/v1/bills', {
      external_bill_id: uid('bill'),
      vendor_id: vendor.id,
      bill_number: 'EDGE',
      issue_date: issue,
      due_date: due,
      line_items: [{ description: 'Edge work', quantity: 1, unit_amount_cents: cents }],
    });
  const b1 = await bill(10_000, FIRST_DAY, FIRST_DAY);
  const b2 = await bill(20_000, FIRST_DAY, LAST_DAY);
  const b3 = await bill(40_000, LAST_DAY, LAST_DAY);
  const b4 = await bill(80_000, '2026-01-10', LAST_DAY);
  for (const [b, cents, date] of [
    [b1, 1_000, FIRST_DAY],
    [b2, 2_000, LAST_DAY],
  ] as const) {
    await created(api, '/api/v1/vendor-payments', {
      external_vendor_payment_id: uid('vp'),
      vendor_id: vendor.id,
      amount_cents: cents,
      payment_date: date,
      allocations: [{ bill_id: b.id, amount_cents: cents }],
    });
  }
  return { customerId, vendorId: vendor.id, invoiceIds: [i1.id, i2.id, i3.id], billIds: [b1.id, b2.id, b3.id, b4.id] };
}
