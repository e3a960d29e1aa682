import { Migration } from '@mikro-orm/migrations';

/**
 * Payment-processor webhook inputs (issue #14): one processor per connected app and environment,
 * its signing secret encrypted at rest; inbound events say where they came from, and are unique per
 * source, so a Stripe event id never collides with an id an app chose for POST /events.
 */
export class Migration20261124000003PaymentProcessors extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE payment_processors (
        -- The source id of the webhook URL (/hooks/stripe/<id>): random, looked up without a key.
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        connected_app_id uuid NOT NULL,
        provider text NOT NULL CHECK (provider IN ('stripe')),
        secret_encrypted text NOT NULL,
        status text NOT NULL CHECK (status IN ('unverified', 'verified')),
        verified_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT payment_processors_app UNIQUE (organization_id, environment, connected_app_id)
      );
      ALTER TABLE inbound_events
        ADD COLUMN source text NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'stripe')),
        ADD COLUMN source_id uuid;
      ALTER TABLE inbound_events DROP CONSTRAINT inbound_events_external_id;
      ALTER TABLE inbound_events ADD CONSTRAINT inbound_events_external_id UNIQUE (organization_id, environment, source, external_event_id);
      CREATE INDEX inbound_events_newest ON inbound_events (organization_id, environment, created_at DESC, id DESC);
    `);
  }
}
