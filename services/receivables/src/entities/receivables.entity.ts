import { EntitySchema } from '@mikro-orm/core';
import type { EstimateStatus, EventSource, InboundEventStatus, InvoiceStatus, PaymentProcessorStatus, PaymentStatus, PayoutStatus } from '@acct/contracts';
import { type Scoped, moneyColumn as money, scopedColumns as scoped } from '@acct/kit';
import { type LineDocument, lineDocumentColumns } from '@acct/posting';

export interface Invoice extends LineDocument {
  externalInvoiceId: string;
  customerId: string;
  invoiceNumber: string;
  dueDate: string;
  paidCents: number;
  status: InvoiceStatus;
  estimateId: string | null;
  journalEntryId: string | null;
  postedAt: Date | null;
}

export const InvoiceSchema = new EntitySchema<Invoice>({
  name: 'Invoice',
  tableName: 'invoices',
  properties: {
    ...lineDocumentColumns(),
    externalInvoiceId: { type: 'text', fieldName: 'external_invoice_id' },
    customerId: { type: 'uuid', fieldName: 'customer_id' },
    invoiceNumber: { type: 'text', fieldName: 'invoice_number' },
    dueDate: { type: 'string', columnType: 'date', fieldName: 'due_date' },
    paidCents: { ...money(), fieldName: 'paid_cents' },
    status: { type: 'text' },
    estimateId: { type: 'uuid', fieldName: 'estimate_id', nullable: true },
    journalEntryId: { type: 'uuid', fieldName: 'journal_entry_id', nullable: true },
    postedAt: { type: 'Date', fieldName: 'posted_at', nullable: true },
  },
});

export interface Payment extends Scoped {
  externalPaymentId: string;
  invoiceId: string;
  customerId: string;
  amountCents: number;
  receivedAt: string;
  receivedDate: string;
  source: 'manual' | 'processor';
  processor: string | null;
  currency: string;
  status: PaymentStatus;
  eventId: string | null;
  journalEntryId: string;
  refundEntryId: string | null;
}

export const PaymentSchema = new EntitySchema<Payment>({
  name: 'Payment',
  tableName: 'payments',
  properties: {
    ...scoped,
    externalPaymentId: { type: 'text', fieldName: 'external_payment_id' },
    invoiceId: { type: 'uuid', fieldName: 'invoice_id' },
    customerId: { type: 'uuid', fieldName: 'customer_id' },
    amountCents: { ...money(), fieldName: 'amount_cents' },
    receivedAt: { type: 'text', fieldName: 'received_at' },
    receivedDate: { type: 'string', columnType: 'date', fieldName: 'received_date' },
    source: { type: 'text' },
    processor: { type: 'text', nullable: true },
    currency: { type: 'text' },
    status: { type: 'text' },
    eventId: { type: 'uuid', fieldName: 'event_id', nullable: true },
    journalEntryId: { type: 'uuid', fieldName: 'journal_entry_id' },
    refundEntryId: { type: 'uuid', fieldName: 'refund_entry_id', nullable: true },
  },
});

export interface Estimate extends LineDocument {
  externalEstimateId: string;
  customerId: string;
  expiryDate: string | null;
  status: EstimateStatus;
  invoiceId: string | null;
}

export const EstimateSchema = new EntitySchema<Estimate>({
  name: 'Estimate',
  tableName: 'estimates',
  properties: {
    ...lineDocumentColumns(),
    externalEstimateId: { type: 'text', fieldName: 'external_estimate_id' },
    customerId: { type: 'uuid', fieldName: 'customer_id' },
    expiryDate: { type: 'string', columnType: 'date', fieldName: 'expiry_date', nullable: true },
    status: { type: 'text' },
    invoiceId: { type: 'uuid', fieldName: 'invoice_id', nullable: true },
  },
});

export interface Payout extends Scoped {
  externalPayoutId: string;
  processor: string;
  payoutDate: string;
  grossCents: number;
  feeCents: number;
  netCents: number;
  currency: string;
  status: PayoutStatus;
  journalEntryId: string | null;
}

export const PayoutSchema = new EntitySchema<Payout>({
  name: 'Payout',
  tableName: 'processor_payouts',
  properties: {
    ...scoped,
    externalPayoutId: { type: 'text', fieldName: 'external_payout_id' },
    processor: { type: 'text' },
    payoutDate: { type: 'string', columnType: 'date', fieldName: 'payout_date' },
    grossCents: { ...money(), fieldName: 'gross_cents' },
    feeCents: { ...money(), fieldName: 'fee_cents' },
    netCents: { ...money(), fieldName: 'net_cents' },
    currency: { type: 'text' },
    status: { type: 'text' },
    journalEntryId: { type: 'uuid', fieldName: 'journal_entry_id', nullable: true },
  },
});

export interface InboundEvent extends Scoped {
  externalEventId: string;
  idempotencyKey: string | null;
  eventType: string;
  payload: Record<string, unknown>;
  payloadHash: string;
  status: InboundEventStatus;
  details: Array<{ field: string; issue: string; message: string }>;
  paymentId: string | null;
  source: EventSource;
  /** The payment processor (its source id) a stripe event came through. */
  sourceId: string | null;
}

export const InboundEventSchema = new EntitySchema<InboundEvent>({
  name: 'InboundEvent',
  tableName: 'inbound_events',
  properties: {
    ...scoped,
    externalEventId: { type: 'text', fieldName: 'external_event_id' },
    idempotencyKey: { type: 'text', fieldName: 'idempotency_key', nullable: true },
    eventType: { type: 'text', fieldName: 'event_type' },
    payload: { type: 'json' },
    payloadHash: { type: 'text', fieldName: 'payload_hash' },
    status: { type: 'text' },
    details: { type: 'json' },
    paymentId: { type: 'uuid', fieldName: 'payment_id', nullable: true },
    source: { type: 'text', default: 'api' },
    sourceId: { type: 'uuid', fieldName: 'source_id', nullable: true },
  },
});

/** A connected app's payment processor: its id is the source id of the webhook URL. */
export interface PaymentProcessor extends Scoped {
  connectedAppId: string;
  provider: 'stripe';
  secretEncrypted: string;
  status: PaymentProcessorStatus;
  verifiedAt: Date | null;
  updatedAt: Date;
}

export const PaymentProcessorSchema = new EntitySchema<PaymentProcessor>({
  name: 'PaymentProcessor',
  tableName: 'payment_processors',
  properties: {
    ...scoped,
    connectedAppId: { type: 'uuid', fieldName: 'connected_app_id' },
    provider: { type: 'text' },
    secretEncrypted: { type: 'text', fieldName: 'secret_encrypted' },
    status: { type: 'text' },
    verifiedAt: { type: 'Date', fieldName: 'verified_at', nullable: true },
    updatedAt: { type: 'Date', fieldName: 'updated_at' },
  },
});
