import { Migration } from '@mikro-orm/migrations';

/** The migration's SQL (FROZEN: pinned in test/deploy/migrations.lock.json). */
const DASHBOARD_DDL = `
      ALTER TABLE api_keys ADD COLUMN expires_at timestamptz, ADD COLUMN last_used_at timestamptz;

      CREATE TABLE members (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id),
        email text NOT NULL,
        name text NOT NULL,
        role text NOT NULL CHECK (role IN ('owner', 'developer', 'accountant', 'viewer')),
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX members_organization_email ON members (organization_id, lower(email));
      CREATE INDEX members_email ON members (lower(email));

      CREATE TABLE invitations (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id),
        email text NOT NULL,
        role text NOT NULL CHECK (role IN ('owner', 'developer', 'accountant', 'viewer')),
        token_hash text NOT NULL UNIQUE,
        invited_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz
      );
      CREATE INDEX invitations_organization ON invitations (organization_id, created_at);

      CREATE TABLE dashboard_sessions (
        id_hash text PRIMARY KEY,
        member_id uuid NOT NULL REFERENCES members (id) ON DELETE CASCADE,
        csrf_token text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        ended_at timestamptz
      );
      CREATE INDEX dashboard_sessions_member ON dashboard_sessions (member_id) WHERE ended_at IS NULL;

      CREATE TABLE passkeys (
        id text PRIMARY KEY,
        member_id uuid NOT NULL REFERENCES members (id) ON DELETE CASCADE,
        public_key bytea NOT NULL,
        counter bigint NOT NULL DEFAULT 0,
        transports text[] NOT NULL DEFAULT '{}',
        name text NOT NULL DEFAULT 'Passkey',
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz
      );
      CREATE INDEX passkeys_member ON passkeys (member_id);

      CREATE TABLE webauthn_challenges (
        id uuid PRIMARY KEY,
        challenge text NOT NULL,
        member_id uuid REFERENCES members (id) ON DELETE CASCADE,
        purpose text NOT NULL CHECK (purpose IN ('registration', 'authentication')),
        expires_at timestamptz NOT NULL
      );

      CREATE TABLE audit_log (
        id uuid PRIMARY KEY,
        seq bigserial NOT NULL UNIQUE,
        organization_id uuid,
        actor_member_id uuid,
        actor_email text NOT NULL,
        action text NOT NULL,
        target text,
        address text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX audit_log_organization ON audit_log (organization_id, seq);
      CREATE INDEX audit_log_failed_sign_ins ON audit_log (lower(target), created_at) WHERE action = 'session.failed';
      CREATE INDEX audit_log_created ON audit_log (created_at);
    `;

/**
 * The dashboard's identity tables (API-DECISIONS §13, docs/dashboard.md): members, invitations,
 * sessions, passkeys and their challenges, the audit log; keys gain an expiry (roll) and a last use.
 * Secrets are stored only as hashes: session ids and invitation tokens as SHA-256, passwords as scrypt.
 */
export class Migration20261128000001Dashboard extends Migration {
  override async up(): Promise<void> {
    this.addSql(DASHBOARD_DDL);
  }
}
