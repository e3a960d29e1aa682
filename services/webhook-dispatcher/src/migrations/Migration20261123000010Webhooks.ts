import { Migration } from '@mikro-orm/migrations';

/** The webhook tables: endpoints, deliveries (one per event and endpoint) and attempts. */
export class Migration20261123000010Webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        connected_app_id uuid NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        url text NOT NULL,
        description text,
        event_types text[] NOT NULL,
        status text NOT NULL CHECK (status IN ('enabled', 'disabled')),
        disabled_reason text,
        secret_encrypted text NOT NULL,
        failing_since timestamptz,
        deleted_at timestamptz,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX webhook_endpoints_list ON webhook_endpoints (organization_id, environment, connected_app_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id),
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        body text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempt_count integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL,
        CONSTRAINT webhook_deliveries_once UNIQUE (event_id, endpoint_id),
        CONSTRAINT webhook_deliveries_due_when_pending CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_list ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);

      CREATE TABLE webhook_attempts (
        id bigserial PRIMARY KEY,
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id),
        attempted_at timestamptz NOT NULL,
        status_code integer,
        duration_ms integer NOT NULL CHECK (duration_ms >= 0),
        error text,
        response_body text
      );
      CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempted_at);
    `);
  }
}
