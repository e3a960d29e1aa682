import type { Environment } from '@acct/contracts';

/** The outbound event as the receivables outbox publishes it. */
export interface OutboundEvent {
  id: string;
  type: string;
  created_at: string;
  organization_id: string;
  connected_app_id: string;
  environment: Environment;
  data: Record<string, unknown>;
}

export function isOutboundEvent(p: Record<string, unknown>): p is Record<string, unknown> & OutboundEvent {
  return (
    typeof p.id === 'string' &&
    typeof p.type === 'string' &&
    typeof p.created_at === 'string' &&
    typeof p.organization_id === 'string' &&
    typeof p.connected_app_id === 'string' &&
    (p.environment === 'test' || p.environment === 'live') &&
    typeof p.data === 'object' &&
    p.data !== null
  );
}

/** The delivery body of SPEC.md §6: the event under the delivery's id (the same across retries). */
export function deliveryBody(deliveryId: string, e: Omit<OutboundEvent, 'id'>): string {
  return JSON.stringify({
    id: deliveryId,
    type: e.type,
    created_at: e.created_at,
    environment: e.environment,
    organization_id: e.organization_id,
    connected_app_id: e.connected_app_id,
    data: e.data,
  });
}
