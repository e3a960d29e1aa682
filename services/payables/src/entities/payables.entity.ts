import { EntitySchema } from '@mikro-orm/core';
import type { Allocation, BillStatus, VendorPaymentStatus, VendorType } from '@acct/contracts';
import { type Scoped, moneyColumn, scopedColumns } from '@acct/kit';
import { type LineDocument, lineDocumentColumns } from '@acct/posting';

export interface Vendor extends Scoped {
  externalVendorId: string;
  displayName: string;
  vendorType: VendorType;
  email: string | null;
  is1099Eligible: boolean;
  w9OnFile: boolean;
  updatedAt: Date;
}

export const VendorSchema = new EntitySchema<Vendor>({
  name: 'Vendor',
  tableName: 'vendors',
  properties: {
    ...scopedColumns,
    externalVendorId: { type: 'text', fieldName: 'external_vendor_id' },
    displayName: { type: 'text', fieldName: 'display_name' },
    vendorType: { type: 'text', fieldName: 'vendor_type' },
    email: { type: 'text', nullable: true },
    is1099Eligible: { type: 'boolean', fieldName: 'is_1099_eligible' },
    w9OnFile: { type: 'boolean', fieldName: 'w9_on_file' },
    updatedAt: { type: 'Date', fieldName: 'updated_at' },
  },
});

/** What a record that posts and can be reversed (bill, vendor payment) keeps of its journal entries. */
export interface Reversible {
  journalEntryId: string | null;
  reversalEntryId: string | null;
  reversalReason: string | null;
  postedAt: Date | null;
  reversedAt: Date | null;
}

const reversibleColumns = {
  journalEntryId: { type: 'uuid', fieldName: 'journal_entry_id', nullable: true },
  reversalEntryId: { type: 'uuid', fieldName: 'reversal_entry_id', nullable: true },
  reversalReason: { type: 'text', fieldName: 'reversal_reason', nullable: true },
  postedAt: { type: 'Date', fieldName: 'posted_at', nullable: true },
  reversedAt: { type: 'Date', fieldName: 'reversed_at', nullable: true },
} as const;

/** A new record's Reversible fields: nothing booked yet. */
export const unposted = (): Reversible => ({ journalEntryId: null, reversalEntryId: null, reversalReason: null, postedAt: null, reversedAt: null });

export interface Bill extends LineDocument, Reversible {
  externalBillId: string;
  vendorId: string;
  billNumber: string;
  dueDate: string;
  expenseAccountCode: string;
  paidCents: number;
  status: BillStatus;
}

export const BillSchema = new EntitySchema<Bill>({
  name: 'Bill',
  tableName: 'bills',
  properties: {
    ...lineDocumentColumns(),
    externalBillId: { type: 'text', fieldName: 'external_bill_id' },
    vendorId: { type: 'uuid', fieldName: 'vendor_id' },
    billNumber: { type: 'text', fieldName: 'bill_number' },
    dueDate: { type: 'string', columnType: 'date', fieldName: 'due_date' },
    expenseAccountCode: { type: 'text', fieldName: 'expense_account_code' },
    paidCents: { ...moneyColumn(), fieldName: 'paid_cents' },
    status: { type: 'text' },
    ...reversibleColumns,
  },
});

export interface VendorPayment extends Scoped, Reversible {
  externalVendorPaymentId: string;
  vendorId: string;
  amountCents: number;
  paymentDate: string;
  cashAccountCode: string;
  allocations: Allocation[];
  currency: string;
  memo: string | null;
  status: VendorPaymentStatus;
}

export const VendorPaymentSchema = new EntitySchema<VendorPayment>({
  name: 'VendorPayment',
  tableName: 'vendor_payments',
  properties: {
    ...scopedColumns,
    externalVendorPaymentId: { type: 'text', fieldName: 'external_vendor_payment_id' },
    vendorId: { type: 'uuid', fieldName: 'vendor_id' },
    amountCents: { ...moneyColumn(), fieldName: 'amount_cents' },
    paymentDate: { type: 'string', columnType: 'date', fieldName: 'payment_date' },
    cashAccountCode: { type: 'text', fieldName: 'cash_account_code' },
    allocations: { type: 'json' },
    currency: { type: 'text' },
    memo: { type: 'text', nullable: true },
    status: { type: 'text' },
    ...reversibleColumns,
  },
});
