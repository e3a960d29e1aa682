import type { Environment, WebhookEventType } from '@acct/contracts';
import { type EntityManager, type Orm, statement, withQuery } from '@acct/kit';

/** The version of the endpoints' subscriptions and every enabled endpoint's scope and event types (the outbound consumer's cache). */

const SUBSCRIPTIONS_VERSION = statement('webhook_subscriptions_version', `SELECT version FROM webhook_subscriptions_version`);

/**
 * The version of the endpoints' subscriptions (bumped by a trigger with every change to them): a
 * named statement on pg directly, the outbound consumer reads it once per batch (a measured hot
 * path, issue #26).
 */
export async function subscriptionsVersion(orm: Orm): Promise<string> {
  const rows = await withQuery(orm, (q) => q<{ version: string }>(SUBSCRIPTIONS_VERSION, []));
  return String(rows[0]!.version);
}

interface SubscriptionRow {
  organization_id: string;
  connected_app_id: string;
  environment: Environment;
  event_types: WebhookEventType[];
}

/**
 * Every enabled endpoint's scope and event types, with the version they are at: one statement, so
 * one snapshot (a change is either in both or in neither).
 */
export async function subscriptionsAt(em: EntityManager): Promise<{ version: string; rows: SubscriptionRow[] }> {
  const rows = await em.execute<(SubscriptionRow & { version: string })[]>(
    `SELECT v.version, e.organization_id, e.connected_app_id, e.environment, e.event_types
       FROM webhook_subscriptions_version v
       LEFT JOIN webhook_endpoints e ON e.status = 'enabled' AND e.deleted_at IS NULL`,
  );
  return { version: String(rows[0]!.version), rows: rows.filter((r) => r.organization_id !== null) };
}
