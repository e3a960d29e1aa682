import { lineItemsDto } from '@acct/posting';
import { customerDto } from './customer.entity';
import type { Estimate, InboundEvent, Invoice, Payment, PaymentProcessor, Payout } from './receivables.entity';

/** Entities → wire (snake_case), the one place the names are converted. */

export function invoiceDto(i: Invoice) {
  return {
    id: i.id,
    external_invoice_id: i.externalInvoiceId,
    customer_id: i.customerId,
    invoice_number: i.invoiceNumber,
    issue_date: i.issueDate,
    due_date: i.dueDate,
    line_items: lineItemsDto(i.lineItems),
    status: i.status,
    total_cents: i.totalCents,
    amount_paid_cents: i.paidCents,
    balance_due_cents: i.status === 'draft' || i.status === 'void' ? 0 : i.totalCents - i.paidCents,
    currency: i.currency,
    memo: i.memo,
    estimate_id: i.estimateId,
    posted_at: i.postedAt ? i.postedAt.toISOString() : null,
    void_date: i.voidDate ?? null,
    voided_at: i.voidedAt ? i.voidedAt.toISOString() : null,
    metadata: i.metadata,
    created_at: i.createdAt.toISOString(),
  };
}

export function paymentDto(p: Payment) {
  return {
    id: p.id,
    external_payment_id: p.externalPaymentId,
    invoice_id: p.invoiceId,
    amount_cents: p.amountCents,
    received_date: p.receivedDate,
    source: p.source,
    processor: p.processor,
    currency: p.currency,
    status: p.status,
    event_id: p.eventId,
    metadata: p.metadata,
    created_at: p.createdAt.toISOString(),
  };
}

export function estimateDto(e: Estimate) {
  return {
    id: e.id,
    external_estimate_id: e.externalEstimateId,
    customer_id: e.customerId,
    issue_date: e.issueDate,
    expiry_date: e.expiryDate,
    line_items: lineItemsDto(e.lineItems),
    status: e.status,
    total_cents: e.totalCents,
    currency: e.currency,
    memo: e.memo,
    invoice_id: e.invoiceId,
    metadata: e.metadata,
    created_at: e.createdAt.toISOString(),
  };
}

export function payoutDto(p: Payout) {
  return {
    id: p.id,
    external_payout_id: p.externalPayoutId,
    processor: p.processor,
    payout_date: p.payoutDate,
    gross_cents: p.grossCents,
    fee_cents: p.feeCents,
    net_cents: p.netCents,
    currency: p.currency,
    status: p.status,
    metadata: p.metadata,
    created_at: p.createdAt.toISOString(),
  };
}

export function eventDto(e: InboundEvent, duplicate: boolean) {
  return {
    id: e.id,
    event_id: e.id,
    event_type: e.eventType,
    external_event_id: e.externalEventId,
    source: e.source,
    duplicate,
    status: e.status,
    payment_id: e.paymentId,
    details: e.details,
    created_at: e.createdAt.toISOString(),
  };
}

/** The webhook URL's path on the gateway: the route /hooks/stripe/{source_id}. */
const stripeWebhookPath = (sourceId: string) => `/hooks/stripe/${sourceId}`;

/** Never the secret, not even encrypted. */
export function paymentProcessorDto(p: PaymentProcessor) {
  return {
    provider: p.provider,
    source_id: p.id,
    webhook_url: stripeWebhookPath(p.id),
    status: p.status,
    verified_at: p.verifiedAt ? p.verifiedAt.toISOString() : null,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

/** How each resource is answered, and (for a create once per external id) where that id is unique. */
export const CUSTOMER = { name: 'customer', dto: customerDto, constraint: 'customers_external_id', external: 'external_customer_id' } as const;
export const INVOICE = { name: 'invoice', dto: invoiceDto, constraint: 'invoices_external_id', external: 'external_invoice_id' } as const;
export const PAYMENT = { name: 'payment', dto: paymentDto } as const;
export const ESTIMATE = { name: 'estimate', dto: estimateDto, constraint: 'estimates_external_id', external: 'external_estimate_id' } as const;
export const PAYOUT = { name: 'processor_payout', dto: payoutDto, constraint: 'processor_payouts_external_id', external: 'external_payout_id' } as const;
