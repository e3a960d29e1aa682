import { Migration } from '@mikro-orm/migrations';

/**
 * Issue #26: a version of the endpoints' subscriptions, so that each dispatcher replica can keep
 * them in memory (consumers/subscriptions.ts) and skip, without a transaction, an outbound event no
 * endpoint subscribes to. One row, bumped by a trigger in the very transaction of every change to
 * what an endpoint subscribes to (created, deleted, enabled or disabled, by request or by the
 * 3-day rule, event_types changed): no code path can forget it, and a replica that reads version v
 * has seen every change up to v committed. Changes that leave subscriptions alone (failing_since on
 * each attempt, a secret rotation, url, description, metadata) do not bump it.
 */
export class Migration20261126000500WebhookSubscriptionsVersion extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE webhook_subscriptions_version (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        version bigint NOT NULL
      );
      INSERT INTO webhook_subscriptions_version (version) VALUES (1);

      CREATE FUNCTION webhook_subscriptions_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE webhook_subscriptions_version SET version = version + 1;
        RETURN NULL;
      END $$;

      CREATE TRIGGER webhook_endpoints_added_or_removed AFTER INSERT OR DELETE ON webhook_endpoints
        FOR EACH STATEMENT EXECUTE FUNCTION webhook_subscriptions_changed();
      CREATE TRIGGER webhook_endpoints_subscriptions_changed AFTER UPDATE ON webhook_endpoints
        FOR EACH ROW WHEN (
          OLD.status IS DISTINCT FROM NEW.status OR OLD.event_types IS DISTINCT FROM NEW.event_types OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at
          OR OLD.organization_id IS DISTINCT FROM NEW.organization_id OR OLD.connected_app_id IS DISTINCT FROM NEW.connected_app_id
          OR OLD.environment IS DISTINCT FROM NEW.environment)
        EXECUTE FUNCTION webhook_subscriptions_changed();
    `);
  }
}
