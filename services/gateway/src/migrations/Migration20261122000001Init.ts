import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000001Init extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE organizations (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        enabled_modules text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE connected_apps (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id),
        name text NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX connected_apps_org ON connected_apps (organization_id);
      -- Keys are kept only as SHA-256 hashes; key_prefix (never enough to use the key) finds the row.
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        connected_app_id uuid NOT NULL REFERENCES connected_apps(id),
        organization_id uuid NOT NULL REFERENCES organizations(id),
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        key_prefix text NOT NULL,
        key_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      );
      CREATE INDEX api_keys_prefix ON api_keys (key_prefix);
      -- First response of a POST with Idempotency-Key, kept 24 h (API-DECISIONS §2).
      CREATE TABLE idempotency_keys (
        api_key_id uuid NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        state text NOT NULL CHECK (state IN ('in_flight', 'completed')),
        response_status integer,
        response_headers jsonb,
        response_body text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (api_key_id, key)
      );
      CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
    `);
  }
}
