/** Webhook endpoints and deliveries as the public API answers them (libs/contracts webhook-endpoints.ts). */
export interface WebhookEndpoint {
  id: string;
  url: string;
  event_types: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  previous_secret_expires_at: string | null;
  metadata: Record<string, string>;
  created_at: string;
}

export interface WebhookAttempt {
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
}

export interface WebhookDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempt_count: number;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
  attempts: WebhookAttempt[];
}

/** What an endpoint can subscribe to (SPEC.md §6; webhook.test is what the test action sends). */
export const WEBHOOK_EVENT_TYPES = ['webhook.test', 'invoice.posted', 'payment.posted', 'invoice.paid', 'invoice.partially_paid', 'invoice.voided', 'api_key.revoked'] as const;
