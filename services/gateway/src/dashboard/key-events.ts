import { randomUUID } from 'node:crypto';
import type { OutboundEvent } from '@acct/contracts';
import { type EntityManager, type OutboxMessage, addToOutbox } from '@acct/kit';
import { gatewayOutboundSubject } from '../events-outbox';
import type { ApiKeyRevoked } from './keys';

/**
 * Writes api_key.revoked to the gateway's outbox inside the caller's transaction (`em` must be the
 * EntityManager of the transaction that revokes the key: it throws otherwise), so the event exists
 * exactly when the revocation commits. The gateway's relay publishes it; the webhook dispatcher
 * delivers it to the endpoints of the key's connected app, organization and environment that
 * subscribe to api_key.revoked. Returns the message, for a caller that publishes it at once after
 * commit (Outbox.publish of the gateway's outbox) rather than waiting for the relay.
 */
export async function emitApiKeyRevoked(em: EntityManager, k: ApiKeyRevoked): Promise<OutboxMessage> {
  const id = randomUUID();
  const revokedAt = new Date(k.revoked_at).toISOString();
  const payload: OutboundEvent<'api_key.revoked'> = {
    id,
    type: 'api_key.revoked',
    created_at: revokedAt,
    organization_id: k.organization_id,
    connected_app_id: k.connected_app_id,
    environment: k.environment,
    data: { api_key_id: k.api_key_id, connected_app_id: k.connected_app_id, revoked_at: revokedAt },
  };
  const message: OutboxMessage = { id, subject: gatewayOutboundSubject('api_key.revoked'), payload };
  await addToOutbox(em, [message]);
  return message;
}
