/**
 * The JetStream side of the contract: one stream per stack (named from NATS_PREFIX) holding the
 * domain events that services publish from their outboxes. Posting events carry a journal entry
 * (reporting consumes them); outbound events are what the webhook dispatcher delivers.
 */
import type { Environment } from './envelope';
import type { ServiceName } from './subjects';

export const OUTBOUND_EVENT_TYPES = ['invoice.posted', 'payment.posted', 'invoice.paid', 'invoice.partially_paid'] as const;
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number];

export function eventsStreamName(prefix: string): string {
  return `${prefix}_events`;
}
export function eventsSubjectFilter(prefix: string): string {
  return `${prefix}.events.>`;
}
export function postingSubject(prefix: string, service: ServiceName): string {
  return `${prefix}.events.posting.${service}`;
}
export function outboundSubject(prefix: string, type: OutboundEventType): string {
  return `${prefix}.events.outbound.${type}`;
}
/** Durable consumers the later services create on the stream. */
export const CONSUMERS = {
  reportingPostings: 'reporting-postings',
  webhookOutbound: 'webhook-dispatcher-outbound',
} as const;

export interface PostingLine {
  account_id: string;
  account_code: string;
  side: 'debit' | 'credit';
  amount_cents: number;
  customer_id: string | null;
  invoice_id: string | null;
  vendor_id: string | null;
  bill_id: string | null;
}

/** "A journal entry was written": everything a ledger projection needs, self-contained. */
export interface PostingEvent {
  id: string;
  type: 'journal_entry.posted';
  organization_id: string;
  environment: Environment;
  occurred_at: string;
  entry: {
    id: string;
    entry_date: string;
    source_type: string;
    source_id: string;
    memo: string | null;
    reverses_entry_id: string | null;
    lines: PostingLine[];
  };
  /** The source document as the API shows it after the change (invoice, payment, payout). */
  source: Record<string, unknown>;
}

/** The body of an outbound webhook delivery, minus the delivery id the dispatcher assigns. */
export interface OutboundEvent {
  id: string;
  type: OutboundEventType;
  created_at: string;
  organization_id: string;
  connected_app_id: string;
  environment: Environment;
  data: Record<string, unknown>;
}
