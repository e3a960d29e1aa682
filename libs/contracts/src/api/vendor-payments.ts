import { Optional, type Static, Type } from '@sinclair/typebox';
import { recordResource } from '../record-resource';
import { StringEnum, date, externalId, obj, positiveCents, recordListQuery, reversibleState, uuid } from '../schemas/common';
import { currency, memo } from '../schemas/line-items';
import { metadataInput, metadataRecord } from '../schemas/metadata';

const VENDOR_PAYMENT_STATUSES = ['ready', 'posted', 'reversed'] as const;
export type VendorPaymentStatus = (typeof VENDOR_PAYMENT_STATUSES)[number];
export const allocations_max = 100;
const allocation = obj({ bill_id: uuid, amount_cents: positiveCents });
export type Allocation = Static<typeof allocation>;
export const vendorPaymentCreateBody = obj({
  external_vendor_payment_id: externalId,
  vendor_id: uuid,
  amount_cents: positiveCents,
  payment_date: date,
  cash_account_id: Optional(uuid),
  allocations: Type.Array(allocation, { minItems: 1, maxItems: allocations_max }),
  currency: Optional(currency),
  memo: Optional(memo),
  status: Optional(StringEnum(['ready', 'posted'] as const, { description: 'posted (default) books the payment now; ready defers it to POST /vendor-payments/{id}/post.' })),
  metadata: Optional(metadataInput),
});
export const vendorPayment = obj({
  id: uuid,
  external_vendor_payment_id: Type.String(),
  vendor_id: uuid,
  amount_cents: Type.Integer(),
  payment_date: date,
  cash_account_id: uuid,
  allocations: Type.Array(obj({ bill_id: uuid, amount_cents: Type.Integer() })),
  status: StringEnum(VENDOR_PAYMENT_STATUSES),
  currency: Type.String(),
  metadata: metadataRecord,
  ...reversibleState,
});
export type VendorPaymentDto = Static<typeof vendorPayment>;
export const vendorPaymentListQuery = recordListQuery('external_vendor_payment_id', {
  vendor_id: Optional(uuid),
  status: Optional(StringEnum(VENDOR_PAYMENT_STATUSES)),
});

export const {
  response: vendorPaymentResponse,
  listResponse: vendorPaymentListResponse,
  postResponse: vendorPaymentPostResponse,
  reverseResponse: vendorPaymentReverseResponse,
  operations: vendorPaymentOperations,
  routes: vendorPaymentRoutes,
} = recordResource({
  service: 'payables',
  resource: 'vendor_payments',
  one: 'vendor_payment',
  record: vendorPayment,
  create: vendorPaymentCreateBody,
  query: vendorPaymentListQuery,
  http: { name: 'Vendor payment', path: '/api/v1/vendor-payments', tag: 'Vendor payments', module: 'bills_ap' },
  actions: ['post', 'reverse'],
  routes: (vendorPayments) => [
    vendorPayments.list('List vendor payments, newest first; filter by vendor_id and status.'),
    vendorPayments.create({
      summary: 'Pay a vendor, posted by default (Dr Accounts Payable / Cr cash_account_id, dated payment_date); retry-safe on external_vendor_payment_id.',
      description:
        'status ready defers the posting to POST /vendor-payments/{id}/post. allocations: 1–100 rows, each bill at most once (400 duplicate_bill), each bill of the same vendor (400 vendor_mismatch), ' +
        'and the allocations sum to amount_cents (400 allocation_sum_mismatch). On posting, each bill must be posted (409 bill_draft / bill_reversed) and each allocation at most its open balance ' +
        '(409 exceeds_open_balance). cash_account_id (default: account 1000 Cash) must be a cash, bank or clearing account of the organization and environment (404 if unknown, 400 otherwise).',
    }),
    vendorPayments.get(),
    vendorPayments.action('post', {
      what: 'payment',
      summary: 'Post a ready vendor payment: Dr Accounts Payable / Cr the cash account, dated payment_date.',
      description:
        'The allocation rules are checked again against the bills as they are now. Posting a posted payment returns it unchanged (200, Idempotent-Replayed: true); a reversed one is 409.',
    }),
    vendorPayments.action('reverse', {
      what: 'payment',
      summary: "Reverse a posted vendor payment: the mirror journal entry, dated the day of reversal; the bills' open balances come back.",
      description: 'A ready payment cannot be reversed (409). Reversing a reversed payment returns it unchanged (200, Idempotent-Replayed: true).',
    }),
  ],
});
