import type { BillDto, VendorDto, VendorPaymentDto } from '@acct/contracts';
import { accountId } from '@acct/ledger';
import { lineItemsDto } from '@acct/posting';
import type { Bill, Reversible, Vendor, VendorPayment } from './payables.entity';
import { openBalance } from '../domain/bills';

/** Entities → wire (snake_case), the one place the names are converted. */

/** The last fields of a bill's and a vendor payment's dto, in this order. */
const reversibleDto = (r: Reversible & { createdAt: Date }) => ({
  posted_at: r.postedAt ? r.postedAt.toISOString() : null,
  reversed_at: r.reversedAt ? r.reversedAt.toISOString() : null,
  reversal_reason: r.reversalReason,
  created_at: r.createdAt.toISOString(),
});

export function vendorDto(v: Vendor): VendorDto {
  return {
    id: v.id,
    external_vendor_id: v.externalVendorId,
    display_name: v.displayName,
    vendor_type: v.vendorType,
    email: v.email,
    is_1099_eligible: v.is1099Eligible,
    w9_on_file: v.w9OnFile,
    metadata: v.metadata,
    created_at: v.createdAt.toISOString(),
    updated_at: v.updatedAt.toISOString(),
  };
}

export function billDto(b: Bill): BillDto {
  return {
    id: b.id,
    external_bill_id: b.externalBillId,
    vendor_id: b.vendorId,
    bill_number: b.billNumber,
    issue_date: b.issueDate,
    due_date: b.dueDate,
    line_items: lineItemsDto(b.lineItems),
    status: b.status,
    total_cents: b.totalCents,
    amount_paid_cents: b.paidCents,
    open_balance_cents: openBalance(b),
    expense_account_id: accountId(b.organizationId, b.environment, b.expenseAccountCode),
    currency: b.currency,
    memo: b.memo,
    metadata: b.metadata,
    ...reversibleDto(b),
  };
}

export function vendorPaymentDto(p: VendorPayment): VendorPaymentDto {
  return {
    id: p.id,
    external_vendor_payment_id: p.externalVendorPaymentId,
    vendor_id: p.vendorId,
    amount_cents: p.amountCents,
    payment_date: p.paymentDate,
    cash_account_id: accountId(p.organizationId, p.environment, p.cashAccountCode),
    allocations: p.allocations.map((a) => ({ bill_id: a.bill_id, amount_cents: a.amount_cents })),
    status: p.status,
    currency: p.currency,
    memo: p.memo,
    metadata: p.metadata,
    ...reversibleDto(p),
  };
}

/** How each resource is answered, and (for a create once per external id) where that id is unique. */
export const VENDOR = { name: 'vendor', dto: vendorDto, constraint: 'vendors_external_id', external: 'external_vendor_id' } as const;
export const BILL = { name: 'bill', dto: billDto, constraint: 'bills_external_id', external: 'external_bill_id' } as const;
export const VENDOR_PAYMENT = { name: 'vendor_payment', dto: vendorPaymentDto } as const;
