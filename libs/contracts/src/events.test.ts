import {
  BOOKS_LOCK_CONSUMERS,
  BOOKS_LOCK_COPY_SERVICES,
  BOOKS_LOCK_OWNER,
  CONSUMERS,
  CONSUMER_SERVICE,
  ENTRY_SOURCE_TYPE,
  EVENT_TYPES,
  type EventMap,
  type OutboundEvent,
  POSTING_SERVICES,
  POSTING_SOURCE_SERVICE,
  type PostingEvent,
  eventErrors,
  outboundSubject,
  postingServiceOfSubject,
  postingSource,
  postingSourceProblem,
  postingSubject,
  validateEvent,
} from './events';
import { partlyPaidInvoice } from '@acct/testing';
import { BOOKS_LOCK_COPY_OPERATIONS } from './api/books-lock';
import { BUS_ROLES } from './bus-permissions';
import { RPC_OPERATIONS } from './subjects';
import type { BillDto } from './api/bills';
import type { CustomerDto } from './api/customers';
import type { PaymentDto } from './api/payments';
import type { PayoutDto } from './api/payouts';
import type { VendorPaymentDto } from './api/vendor-payments';
import type { VendorDto } from './api/vendors';

// Shaped as services/receivables builds them (entities/dto.ts, books.ts, handlers/*.ts).
const ORG = '0b6f1f5e-8a53-4a8e-9d4e-2f1c3b0a9e11';
const CUSTOMER = '4f7c2d1a-3b5e-4c6d-8e9f-0a1b2c3d4e5f';
const INVOICE = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const PAYMENT = '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5a';
const PAYOUT = '7e6d5c4b-3a29-4817-a6f5-e4d3c2b1a090';
const ENTRY = '2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901';
const account = (n: number) => `5d3a${n}000-0000-5000-8000-00000000000${n}`;

const invoice = partlyPaidInvoice(2500, 5000, {
  id: INVOICE,
  external_invoice_id: 'inv-1001',
  customer_id: CUSTOMER,
  invoice_number: 'INV-1001',
  issue_date: '2026-03-01',
  due_date: '2026-03-31',
  estimate_id: null,
  posted_at: '2026-03-01T09:30:00.000Z',
  created_at: '2026-03-01T09:00:00.000Z',
});
const payment: PaymentDto = {
  id: PAYMENT,
  external_payment_id: 'pay-1',
  invoice_id: INVOICE,
  amount_cents: 5000,
  received_date: '2026-03-05',
  source: 'processor',
  processor: 'stripe',
  currency: 'USD',
  status: 'posted',
  event_id: null,
  metadata: {},
  created_at: '2026-03-05T12:00:00.000Z',
};
const payout: PayoutDto = {
  id: PAYOUT,
  external_payout_id: 'po_1',
  processor: 'stripe',
  payout_date: '2026-03-07',
  gross_cents: 5000,
  fee_cents: 175,
  net_cents: 4825,
  currency: 'USD',
  status: 'created',
  metadata: {},
  created_at: '2026-03-07T08:00:00.000Z',
};
const customer: CustomerDto = {
  id: CUSTOMER,
  external_customer_id: 'cus-1',
  name: 'Ada Lovelace',
  email: null,
  status: 'active',
  metadata: { crm_id: 'crm-1' },
  created_at: '2026-02-28T10:00:00.000Z',
  updated_at: '2026-02-28T10:00:00.000Z',
};

const line = (code: string, n: number, side: 'debit' | 'credit', amount: number, dims = true) => ({
  account_id: account(n),
  account_code: code,
  side,
  amount_cents: amount,
  customer_id: dims ? CUSTOMER : null,
  invoice_id: dims ? INVOICE : null,
  vendor_id: null,
  bill_id: null,
});

const posting = (source: EventMap['journal_entry.posted']['source'], entry: Partial<EventMap['journal_entry.posted']['entry']> = {}): EventMap['journal_entry.posted'] => ({
  id: 'c0ffee00-1111-4222-8333-944445555666',
  type: 'journal_entry.posted',
  organization_id: ORG,
  environment: 'test',
  occurred_at: '2026-03-01T09:30:00.123Z',
  entry: {
    id: ENTRY,
    entry_date: '2026-03-01',
    source_type: 'invoice',
    source_id: INVOICE,
    memo: 'Invoice INV-1001',
    reverses_entry_id: null,
    lines: [line('1100', 1, 'debit', 17500), line('4000', 2, 'credit', 17500)],
    ...entry,
  },
  source,
});

const invoicePosting = posting({ type: 'invoice', invoice: { ...invoice, status: 'open', amount_paid_cents: 0, balance_due_cents: 17500 } });
const invoiceVoid = posting(
  { type: 'invoice_void', invoice: { ...invoice, status: 'void', amount_paid_cents: 0, balance_due_cents: 0, void_date: '2026-03-20', voided_at: '2026-03-20T10:00:00.000Z' } },
  {
    id: '7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d',
    entry_date: '2026-03-20',
    memo: 'Void of invoice INV-1001',
    reverses_entry_id: ENTRY,
    lines: [line('1100', 1, 'credit', 17500), line('4000', 2, 'debit', 17500)],
  },
);
const paymentPosting = posting(
  { type: 'payment', payment, invoice },
  { entry_date: '2026-03-05', source_type: 'payment', source_id: PAYMENT, memo: 'Customer payment', lines: [line('1200', 3, 'debit', 5000), line('1100', 1, 'credit', 5000)] },
);
const refundPosting = posting(
  {
    type: 'payment_refund',
    payment: { ...payment, status: 'refunded', event_id: 'e1e2e3e4-f5f6-4a7b-8c9d-0e1f2a3b4c5d' },
    invoice: { ...invoice, status: 'open', amount_paid_cents: 0, balance_due_cents: 17500 },
  },
  {
    entry_date: '2026-03-09',
    source_type: 'payment',
    source_id: PAYMENT,
    memo: 'Full refund of a customer payment',
    reverses_entry_id: '3c4d5e6f-7081-4293-a4b5-c6d7e8f90a1b',
    lines: [line('1200', 3, 'credit', 5000), line('1100', 1, 'debit', 5000)],
  },
);
const payoutPosting = posting(
  { type: 'processor_payout', processor_payout: payout },
  {
    entry_date: '2026-03-07',
    source_type: 'processor_payout',
    source_id: PAYOUT,
    memo: 'stripe payout',
    lines: [line('1010', 4, 'debit', 4825, false), line('5200', 5, 'debit', 175, false), line('1200', 3, 'credit', 5000, false)],
  },
);

// Shaped as services/payables builds them (entities/dto.ts, domain/postings.ts).
const VENDOR = '6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d';
const BILL = '8b7a6c5d-4e3f-4210-a9b8-c7d6e5f4a3b2';
const VENDOR_PAYMENT = '3e2d1c0b-9a8f-4e7d-b6c5-a4b3c2d1e0f9';
const vendor: VendorDto = {
  id: VENDOR,
  external_vendor_id: 'ven-1',
  display_name: 'Grace Hopper Consulting',
  vendor_type: 'contractor',
  email: null,
  is_1099_eligible: true,
  w9_on_file: false,
  metadata: {},
  created_at: '2026-02-28T10:00:00.000Z',
  updated_at: '2026-02-28T10:00:00.000Z',
};
const bill: BillDto = {
  id: BILL,
  external_bill_id: 'bill-1',
  vendor_id: VENDOR,
  bill_number: 'B-1',
  issue_date: '2026-03-02',
  due_date: '2026-04-01',
  line_items: [{ description: 'Design', quantity: 2, unit_amount_cents: 4000, amount_cents: 8000 }],
  status: 'posted',
  total_cents: 8000,
  amount_paid_cents: 3000,
  open_balance_cents: 5000,
  expense_account_id: account(6),
  currency: 'USD',
  memo: null,
  metadata: { po: 'PO-7' },
  posted_at: '2026-03-02T09:00:00.000Z',
  reversed_at: null,
  reversal_reason: null,
  created_at: '2026-03-02T09:00:00.000Z',
};
const vendorPayment: VendorPaymentDto = {
  id: VENDOR_PAYMENT,
  external_vendor_payment_id: 'vp-1',
  vendor_id: VENDOR,
  amount_cents: 3000,
  payment_date: '2026-03-10',
  cash_account_id: account(1),
  allocations: [{ bill_id: BILL, amount_cents: 3000 }],
  status: 'posted',
  currency: 'USD',
  memo: null,
  metadata: {},
  posted_at: '2026-03-10T09:00:00.000Z',
  reversed_at: null,
  reversal_reason: null,
  created_at: '2026-03-10T09:00:00.000Z',
};
const apLine = (code: string, n: number, side: 'debit' | 'credit', amount: number, billId: string | null = BILL) => ({
  ...line(code, n, side, amount, false),
  vendor_id: VENDOR,
  bill_id: billId,
});
const billPosting = posting(
  { type: 'bill', bill: { ...bill, amount_paid_cents: 0, open_balance_cents: 8000 } },
  { entry_date: '2026-03-02', source_type: 'bill', source_id: BILL, memo: 'Bill B-1', lines: [apLine('5000', 6, 'debit', 8000), apLine('2000', 7, 'credit', 8000)] },
);
const billReversal = posting(
  {
    type: 'bill_reversal',
    bill: { ...bill, status: 'reversed', amount_paid_cents: 0, open_balance_cents: 0, reversed_at: '2026-03-04T09:00:00.000Z', reversal_reason: 'Duplicate' },
  },
  {
    entry_date: '2026-03-04',
    source_type: 'bill',
    source_id: BILL,
    reverses_entry_id: ENTRY,
    lines: [apLine('5000', 6, 'credit', 8000), apLine('2000', 7, 'debit', 8000)],
  },
);
const vendorPaymentPosting = posting(
  { type: 'vendor_payment', vendor_payment: vendorPayment, bills: [bill] },
  {
    entry_date: '2026-03-10',
    source_type: 'vendor_payment',
    source_id: VENDOR_PAYMENT,
    lines: [apLine('2000', 7, 'debit', 3000), apLine('1000', 1, 'credit', 3000, null)],
  },
);
const vendorPaymentReversal = posting(
  { type: 'vendor_payment_reversal', vendor_payment: { ...vendorPayment, status: 'reversed' }, bills: [{ ...bill, amount_paid_cents: 0, open_balance_cents: 8000 }] },
  {
    entry_date: '2026-03-11',
    source_type: 'vendor_payment',
    source_id: VENDOR_PAYMENT,
    reverses_entry_id: ENTRY,
    lines: [apLine('2000', 7, 'credit', 3000), apLine('1000', 1, 'debit', 3000, null)],
  },
);

const examples: { [K in keyof EventMap]: [EventMap[K], ...EventMap[K][]] } = {
  'journal_entry.posted': [invoicePosting, invoiceVoid, paymentPosting, refundPosting, payoutPosting, billPosting, billReversal, vendorPaymentPosting, vendorPaymentReversal],
  'invoice.posted': [
    { invoice_id: INVOICE, invoice_number: 'INV-1001', customer_id: CUSTOMER, total_cents: 17500, currency: 'USD', issue_date: '2026-03-01', due_date: '2026-03-31' },
    { invoice_id: INVOICE, invoice_number: 'INV-0', customer_id: CUSTOMER, total_cents: 0, currency: 'USD', issue_date: '2026-03-01', due_date: '2026-03-01' },
  ],
  'payment.posted': [{ payment_id: PAYMENT, invoice_id: INVOICE, amount_cents: 5000, currency: 'USD' }],
  'invoice.paid': [{ invoice_id: INVOICE, amount_paid_cents: 17500, total_cents: 17500, currency: 'USD' }],
  'invoice.partially_paid': [{ invoice_id: INVOICE, amount_paid_cents: 5000, balance_due_cents: 12500, total_cents: 17500, currency: 'USD' }],
  'invoice.voided': [
    { invoice_id: INVOICE, total_cents: 17500, currency: 'USD' },
    { invoice_id: INVOICE, total_cents: 0, currency: 'USD' },
  ],
  'api_key.revoked': [{ api_key_id: 'b1b2b3b4-c5c6-4d7e-8f9a-0b1c2d3e4f5a', connected_app_id: 'a1a2a3a4-b5b6-4c7d-8e9f-0a1b2c3d4e5f', revoked_at: '2026-03-05T12:00:00.000Z' }],
  'customer.created': [customer, { ...customer, email: 'ada@example.com' }],
  'customer.updated': [{ ...customer, name: 'Ada King' }],
  'vendor.created': [vendor, { ...vendor, email: 'ap@hopper.example', vendor_type: 'business', is_1099_eligible: false }],
  'vendor.updated': [{ ...vendor, w9_on_file: true, updated_at: '2026-03-01T10:00:00.000Z' }],
  'books_lock.updated': [
    { version: 1, lock_date: '2026-03-31' },
    { version: 2, lock_date: null },
  ],
};

describe('event catalogue', () => {
  it('has a schema and examples for every event type', () => {
    expect(EVENT_TYPES.sort()).toEqual(Object.keys(examples).sort());
  });

  it.each(Object.entries(examples).flatMap(([type, list]) => list.map((p, i) => [`${type} #${i + 1}`, type, p] as const)))(
    'accepts %s as the code builds it',
    (_name, type, payload) => {
      expect(eventErrors(type as keyof EventMap, payload)).toEqual([]);
      expect(validateEvent(type as keyof EventMap, payload)).toBe(true);
    },
  );

  const bad: [string, keyof EventMap, unknown, string][] = [
    ['a posting with an unknown source type', 'journal_entry.posted', posting({ type: 'bill', invoice } as never), '/source'],
    ['a payment posting whose source lacks the invoice', 'journal_entry.posted', posting({ type: 'payment', payment } as never), '/source'],
    ['a posting with an extra source member', 'journal_entry.posted', posting({ type: 'invoice', invoice, payment } as never), '/source'],
    [
      'a posting line of side both',
      'journal_entry.posted',
      posting(invoicePosting.source, { lines: [{ ...line('1100', 1, 'debit', 1), side: 'both' as never }] }),
      '/entry/lines/0/side',
    ],
    ['a posting line of 0 cents', 'journal_entry.posted', posting(invoicePosting.source, { lines: [line('1100', 1, 'debit', 0)] }), '/entry/lines/0/amount_cents'],
    ['a posting without lines', 'journal_entry.posted', posting(invoicePosting.source, { lines: [] }), '/entry/lines'],
    ['a posting in another environment', 'journal_entry.posted', { ...invoicePosting, environment: 'staging' }, '/environment'],
    ['a posting with a bad entry date', 'journal_entry.posted', posting(invoicePosting.source, { entry_date: '2026-02-30' }), '/entry/entry_date'],
    ['invoice.posted with a string total', 'invoice.posted', { ...examples['invoice.posted'][0], total_cents: '17500' }, '/total_cents'],
    ['payment.posted without currency', 'payment.posted', { payment_id: PAYMENT, invoice_id: INVOICE, amount_cents: 5000 }, '/currency'],
    ['payment.posted with a bad invoice id', 'payment.posted', { payment_id: PAYMENT, invoice_id: 'inv-1', amount_cents: 5000, currency: 'USD' }, '/invoice_id'],
    ['invoice.voided without currency', 'invoice.voided', { invoice_id: INVOICE, total_cents: 17500 }, '/currency'],
    ['invoice.voided with a negative total', 'invoice.voided', { invoice_id: INVOICE, total_cents: -1, currency: 'USD' }, '/total_cents'],
    ['invoice.paid with an unknown field', 'invoice.paid', { ...examples['invoice.paid'][0], paid: true }, '/paid'],
    ['invoice.partially_paid with nothing left to pay', 'invoice.partially_paid', { ...examples['invoice.partially_paid'][0], balance_due_cents: 0 }, '/balance_due_cents'],
    ['customer.created without email', 'customer.created', { ...customer, email: undefined }, '/email'],
    ['customer.updated with an unknown status', 'customer.updated', { ...customer, status: 'archived' }, '/status'],
    ['a payload that is not an object', 'invoice.paid', null, '/'],
    ['api_key.revoked without revoked_at', 'api_key.revoked', { api_key_id: ORG, connected_app_id: ORG }, '/revoked_at'],
    [
      'api_key.revoked with a key prefix for its id',
      'api_key.revoked',
      { api_key_id: 'svc_test_abc', connected_app_id: ORG, revoked_at: '2026-03-05T12:00:00.000Z' },
      '/api_key_id',
    ],
    ['a vendor payment posting without its bills', 'journal_entry.posted', posting({ type: 'vendor_payment', vendor_payment: vendorPayment, bills: [] }), '/source'],
    ['vendor.updated without w9_on_file', 'vendor.updated', { ...vendor, w9_on_file: undefined }, '/w9_on_file'],
  ];

  it.each(bad)('rejects %s', (_name, type, payload, field) => {
    expect(validateEvent(type, payload)).toBe(false);
    expect(eventErrors(type, payload).map((d) => d.field)).toContain(field);
  });

  it('refuses an event type it does not know', () => {
    expect(() => validateEvent('invoice.deleted' as keyof EventMap, {})).toThrow(/unknown event type/);
  });

  it('keeps the shapes the books and the stream already use', () => {
    const loose: PostingEvent = invoicePosting; // PostingEvent's source stays Record<string, unknown>
    const outbound: OutboundEvent<'payment.posted'> = {
      id: 'd1d2d3d4-e5e6-4f7a-8b9c-0d1e2f3a4b5c',
      type: 'payment.posted',
      created_at: '2026-03-05T12:00:00.000Z',
      organization_id: ORG,
      connected_app_id: 'a1a2a3a4-b5b6-4c7d-8e9f-0a1b2c3d4e5f',
      environment: 'test',
      data: examples['payment.posted'][0],
    };
    expect(validateEvent(outbound.type, outbound.data)).toBe(true);
    expect(validateEvent('journal_entry.posted', loose)).toBe(true);
    expect(postingSubject('acct', 'receivables')).toBe('acct.events.posting.receivables');
    expect(outboundSubject('acct', 'invoice.paid')).toBe('acct.events.outbound.invoice.paid');
    expect(CONSUMERS).toEqual({ reportingPostings: 'reporting-postings', webhookOutbound: 'webhook-dispatcher-outbound', payablesBooksLock: 'payables-books-lock' });
  });
});

describe('the books lock date: one owner, a copy in every other posting service', () => {
  it('derives the copies from POSTING_SOURCES, each with its consumer, run by the copy itself, and its push operation, called by the owner', () => {
    expect(BOOKS_LOCK_OWNER).toBe('receivables');
    expect(BOOKS_LOCK_COPY_SERVICES).toEqual(POSTING_SERVICES.filter((s) => s !== 'receivables'));
    expect(BOOKS_LOCK_COPY_SERVICES).toEqual(['payables']);
    for (const service of BOOKS_LOCK_COPY_SERVICES) {
      const consumer = BOOKS_LOCK_CONSUMERS[service];
      expect([service, CONSUMER_SERVICE[consumer]]).toEqual([service, service]);
      expect(BUS_ROLES[service].consumes).toContain(consumer);
      expect(BUS_ROLES[service].admin).toContain(`parked.${consumer}`);
      const op = BOOKS_LOCK_COPY_OPERATIONS[service];
      expect([op, RPC_OPERATIONS[op]]).toEqual([op, service]);
      expect(BUS_ROLES[BOOKS_LOCK_OWNER].calls).toContain(op);
    }
    expect(BUS_ROLES[BOOKS_LOCK_OWNER].emits).toContain('books_lock.updated');
  });
});

describe('posting source types: one service each, declared with the sources', () => {
  it('maps every source type of the postingSource union to the service whose list declares it, and to its entry source type', () => {
    const declared = postingSource.anyOf.map((s) => (s.properties as { type: { const: string } }).type.const).sort();
    expect(Object.keys(POSTING_SOURCE_SERVICE).sort()).toEqual(declared);
    expect(Object.keys(ENTRY_SOURCE_TYPE).sort()).toEqual(declared);
    expect(POSTING_SOURCE_SERVICE).toMatchObject({ invoice: 'receivables', payment_refund: 'receivables', bill: 'payables', vendor_payment_reversal: 'payables' });
  });

  it('says why a service may not post a source type, and reads the service of a posting subject', () => {
    expect(postingSourceProblem('receivables', 'invoice_void', 'invoice')).toBeUndefined();
    expect(postingSourceProblem('payables', 'invoice', 'invoice')).toBe('source type invoice is posted by receivables, not by payables');
    expect(postingSourceProblem('payables', 'bill', 'vendor_payment')).toMatch(/has source_type bill, not "vendor_payment"/);
    expect(postingSourceProblem('payables', 'toString', 'x')).toBe('unknown source type "toString"');
    expect(postingServiceOfSubject('acct', 'acct.events.posting.payables')).toBe('payables');
    expect(postingServiceOfSubject('acct', 'acct.events.posting.reporting')).toBeUndefined();
    expect(postingServiceOfSubject('acct', 'other.events.posting.payables')).toBeUndefined();
  });
});
