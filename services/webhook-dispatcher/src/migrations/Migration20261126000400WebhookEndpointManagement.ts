import { Migration } from '@mikro-orm/migrations';

/**
 * API-DECISIONS §11 endpoint management: endpoint metadata; the secret before a rotation, kept
 * (encrypted like the current one) until it expires; and on deliveries what a manual retry needs:
 * a queued manual attempt, the status a failed or delivered delivery returns to when that attempt
 * fails, how many manual attempts were made (they do not use up the retry schedule), and the lease
 * of an attempt in flight (so a retry request never starts a second, concurrent send).
 */
export class Migration20261126000400WebhookEndpointManagement extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      ALTER TABLE webhook_endpoints
        ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        ADD COLUMN previous_secret_encrypted text,
        ADD COLUMN previous_secret_expires_at timestamptz,
        ADD CONSTRAINT webhook_endpoints_previous_secret_expires CHECK ((previous_secret_encrypted IS NULL) = (previous_secret_expires_at IS NULL));

      ALTER TABLE webhook_deliveries
        ADD COLUMN manual_attempt boolean NOT NULL DEFAULT false,
        ADD COLUMN resume_status text CHECK (resume_status IN ('delivered', 'failed')),
        ADD COLUMN manual_attempts integer NOT NULL DEFAULT 0 CHECK (manual_attempts >= 0),
        ADD COLUMN leased_until timestamptz,
        ADD CONSTRAINT webhook_deliveries_resume_when_pending CHECK (resume_status IS NULL OR status = 'pending');
    `);
  }
}
