import type { EstimateStatus, EventSource, InboundEventStatus, InvoiceStatus, Metadata, PaymentProcessorStatus, PaymentStatus, PayoutStatus } from '@acct/contracts';
import { type Scoped, columns, scopedEntity } from '@acct/kit';
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
  /** The void's accounting date (its reversing entry's date, when it had an entry). */
  voidDate: string | null;
  voidedAt: Date | null;
  voidEntryId: string | null;
  metadata: Metadata;
}

/** The void fields of an invoice that is not void (every new invoice). */
export const NOT_VOID = { voidDate: null, voidedAt: null, voidEntryId: null } as const;

export const InvoiceSchema = scopedEntity<Invoice>('Invoice', 'invoices', {
  ...lineDocumentColumns(),
  ...columns({ externalInvoiceId: 'text', customerId: 'uuid', invoiceNumber: 'text', dueDate: 'date', paidCents: 'money', status: 'text' }),
  ...columns({ estimateId: 'uuid?', journalEntryId: 'uuid?', postedAt: 'Date?', metadata: 'json' }),
  ...columns({ voidDate: 'date?', voidedAt: 'Date?', voidEntryId: 'uuid?' }),
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
  metadata: Metadata;
}

export const PaymentSchema = scopedEntity<Payment>('Payment', 'payments', {
  ...columns({ externalPaymentId: 'text', invoiceId: 'uuid', customerId: 'uuid', amountCents: 'money', receivedAt: 'text', receivedDate: 'date', source: 'text' }),
  ...columns({ processor: 'text?', currency: 'text', status: 'text', eventId: 'uuid?', journalEntryId: 'uuid', refundEntryId: 'uuid?', metadata: 'json' }),
});

export interface Estimate extends LineDocument {
  externalEstimateId: string;
  customerId: string;
  expiryDate: string | null;
  status: EstimateStatus;
  invoiceId: string | null;
  metadata: Metadata;
}

export const EstimateSchema = scopedEntity<Estimate>('Estimate', 'estimates', {
  ...lineDocumentColumns(),
  ...columns({ externalEstimateId: 'text', customerId: 'uuid', expiryDate: 'date?', status: 'text', invoiceId: 'uuid?', metadata: 'json' }),
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
  metadata: Metadata;
}

export const PayoutSchema = scopedEntity<Payout>('Payout', 'processor_payouts', {
  ...columns({ externalPayoutId: 'text', processor: 'text', payoutDate: 'date', grossCents: 'money', feeCents: 'money', netCents: 'money', currency: 'text' }),
  ...columns({ status: 'text', journalEntryId: 'uuid?', metadata: 'json' }),
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

export const InboundEventSchema = scopedEntity<InboundEvent>('InboundEvent', 'inbound_events', {
  ...columns({ externalEventId: 'text', idempotencyKey: 'text?', eventType: 'text', payload: 'json', payloadHash: 'text', status: 'text', details: 'json' }),
  ...columns({ paymentId: 'uuid?', sourceId: 'uuid?' }),
  source: { type: 'text', default: 'api' },
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

export const PaymentProcessorSchema = scopedEntity<PaymentProcessor>('PaymentProcessor', 'payment_processors', {
  ...columns({ connectedAppId: 'uuid', provider: 'text', secretEncrypted: 'text', status: 'text', verifiedAt: 'Date?', updatedAt: 'Date' }),
});
