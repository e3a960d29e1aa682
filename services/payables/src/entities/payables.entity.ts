import type { Allocation, BillStatus, Metadata, VendorPaymentStatus } from '@acct/contracts';
import { type Scoped, columns, scopedEntity } from '@acct/kit';
import { type LineDocument, lineDocumentColumns } from '@acct/posting';
import type { VendorFields } from '../domain/vendors';

export interface Vendor extends Scoped, VendorFields {
  externalVendorId: string;
  updatedAt: Date;
}

export const VendorSchema = scopedEntity<Vendor>('Vendor', 'vendors', {
  ...columns({ externalVendorId: 'text', displayName: 'text', vendorType: 'text', email: 'text?', w9OnFile: 'boolean', metadata: 'json', updatedAt: 'Date' }),
  is1099Eligible: { type: 'boolean', fieldName: 'is_1099_eligible' },
});

/** What a record that posts and can be reversed (bill, vendor payment) keeps of its journal entries. */
export interface Reversible {
  journalEntryId: string | null;
  reversalEntryId: string | null;
  reversalReason: string | null;
  postedAt: Date | null;
  reversedAt: Date | null;
}

const reversibleColumns = columns({ journalEntryId: 'uuid?', reversalEntryId: 'uuid?', reversalReason: 'text?', postedAt: 'Date?', reversedAt: 'Date?' });

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
  metadata: Metadata;
}

export const BillSchema = scopedEntity<Bill>('Bill', 'bills', {
  ...lineDocumentColumns(),
  ...columns({ externalBillId: 'text', vendorId: 'uuid', billNumber: 'text', dueDate: 'date', expenseAccountCode: 'text', paidCents: 'money', status: 'text', metadata: 'json' }),
  ...reversibleColumns,
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
  metadata: Metadata;
}

export const VendorPaymentSchema = scopedEntity<VendorPayment>('VendorPayment', 'vendor_payments', {
  ...columns({ externalVendorPaymentId: 'text', vendorId: 'uuid', amountCents: 'money', paymentDate: 'date', cashAccountCode: 'text' }),
  ...columns({ allocations: 'json', currency: 'text', memo: 'text?', status: 'text', metadata: 'json' }),
  ...reversibleColumns,
});
