import { Optional, type Static, Type } from '@sinclair/typebox';
import { limits } from '../limits';
import { Nullable, StringEnum, withAction, date, dateTime, email, externalId, listEnvelope, name, obj, paginationQuery, singleEnvelope, uuid } from './common';
import { currency, lineItem, lineItemsInput } from './receivables';

/** Vendors, bills and vendor payments (the payables service). */

const memo = Type.String({ maxLength: limits.description_length_max });
const reason = Type.String({ minLength: 1, maxLength: limits.description_length_max, description: 'Why the record is reversed (kept on it).' });
const positiveCents = Type.Integer({ minimum: 1, maximum: limits.amount_cents_max });
// ---------- vendors ----------
export const VENDOR_TYPES = ['contractor', 'business'] as const;
export type VendorType = (typeof VENDOR_TYPES)[number];
export const vendorCreateBody = obj({
  external_vendor_id: externalId,
  display_name: name,
  vendor_type: Optional(StringEnum(VENDOR_TYPES, { description: 'Default contractor.' })),
  email: Optional(email),
  is_1099_eligible: Optional(Type.Boolean({ description: 'Default false.' })),
  w9_on_file: Optional(Type.Boolean({ description: 'Default false.' })),
});
export type VendorCreateBody = Static<typeof vendorCreateBody>;
export const vendorUpdateBody = obj(
  {
    display_name: Optional(name),
    email: Optional(Nullable(email)),
    is_1099_eligible: Optional(Type.Boolean()),
    w9_on_file: Optional(Type.Boolean()),
  },
  { minProperties: 1 },
);
export type VendorUpdateBody = Static<typeof vendorUpdateBody>;
export const vendor = obj({
  id: uuid,
  external_vendor_id: Type.String(),
  display_name: Type.String(),
  vendor_type: StringEnum(VENDOR_TYPES),
  email: Nullable(Type.String()),
  is_1099_eligible: Type.Boolean(),
  w9_on_file: Type.Boolean(),
  created_at: dateTime,
  updated_at: dateTime,
});
export type VendorDto = Static<typeof vendor>;
export const vendorListQuery = obj({ ...paginationQuery, vendor_type: Optional(StringEnum(VENDOR_TYPES)), is_1099_eligible: Optional(Type.Boolean()) });
export const vendorResponse = singleEnvelope('vendor', vendor);
export const vendorListResponse = listEnvelope('vendors', vendor);

// ---------- bills ----------
export const BILL_STATUSES = ['draft', 'posted', 'reversed'] as const;
export type BillStatus = (typeof BILL_STATUSES)[number];
export const billCreateBody = obj({
  external_bill_id: externalId,
  vendor_id: uuid,
  bill_number: Type.String({ minLength: 1, maxLength: limits.number_length_max }),
  issue_date: date,
  due_date: date,
  line_items: lineItemsInput,
  expense_account_id: Optional(uuid),
  currency: Optional(currency),
  memo: Optional(memo),
  status: Optional(StringEnum(['draft', 'posted'] as const, { description: 'posted (default) books the bill now; draft defers it to POST /bills/{id}/post.' })),
});
export const bill = obj({
  id: uuid,
  external_bill_id: Type.String(),
  vendor_id: uuid,
  bill_number: Type.String(),
  issue_date: date,
  due_date: date,
  line_items: Type.Array(lineItem),
  status: StringEnum(BILL_STATUSES),
  total_cents: Type.Integer(),
  amount_paid_cents: Type.Integer({ description: 'Allocated by posted, unreversed vendor payments.' }),
  open_balance_cents: Type.Integer({ description: 'total less payments while posted; 0 while draft or once reversed.' }),
  expense_account_id: uuid,
  currency: Type.String(),
  memo: Nullable(Type.String()),
  posted_at: Nullable(dateTime),
  reversed_at: Nullable(dateTime),
  reversal_reason: Nullable(Type.String()),
  created_at: dateTime,
});
export type BillDto = Static<typeof bill>;
export const billListQuery = obj({
  ...paginationQuery,
  status: Optional(StringEnum(BILL_STATUSES)),
  vendor_id: Optional(uuid),
  issue_date_from: Optional(Type.String({ format: 'date', description: 'Bills issued on or after this date.' })),
  issue_date_to: Optional(Type.String({ format: 'date', description: 'Bills issued on or before this date.' })),
});
export const billReverseBody = obj({ reversal_reason: reason });
export const billResponse = singleEnvelope('bill', bill);
export const billListResponse = listEnvelope('bills', bill);
export const billPostResponse = withAction('bill', bill, 'posted');
export const billReverseResponse = withAction('bill', bill, 'reversed');

// ---------- vendor payments ----------
export const VENDOR_PAYMENT_STATUSES = ['ready', 'posted', 'reversed'] as const;
export type VendorPaymentStatus = (typeof VENDOR_PAYMENT_STATUSES)[number];
export const allocations_max = 100;
export const allocation = obj({ bill_id: uuid, amount_cents: positiveCents });
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
  memo: Nullable(Type.String()),
  posted_at: Nullable(dateTime),
  reversed_at: Nullable(dateTime),
  reversal_reason: Nullable(Type.String()),
  created_at: dateTime,
});
export type VendorPaymentDto = Static<typeof vendorPayment>;
export const vendorPaymentListQuery = obj({ ...paginationQuery, vendor_id: Optional(uuid), status: Optional(StringEnum(VENDOR_PAYMENT_STATUSES)) });
export const vendorPaymentReverseBody = obj({ reversal_reason: reason });
export const vendorPaymentResponse = singleEnvelope('vendor_payment', vendorPayment);
export const vendorPaymentListResponse = listEnvelope('vendor_payments', vendorPayment);
export const vendorPaymentPostResponse = withAction('vendor_payment', vendorPayment, 'posted');
export const vendorPaymentReverseResponse = withAction('vendor_payment', vendorPayment, 'reversed');
