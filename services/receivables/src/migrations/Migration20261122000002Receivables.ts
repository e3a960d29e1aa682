import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000002Receivables extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE invoices (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        external_invoice_id text NOT NULL,
        customer_id uuid NOT NULL REFERENCES customers(id),
        invoice_number text NOT NULL,
        issue_date date NOT NULL,
        due_date date NOT NULL CHECK (due_date >= issue_date),
        currency text NOT NULL,
        memo text,
        line_items jsonb NOT NULL,
        total_cents bigint NOT NULL CHECK (total_cents >= 0),
        -- Never more paid than billed, whatever code runs: the last guard against overpayment.
        paid_cents bigint NOT NULL DEFAULT 0 CHECK (paid_cents >= 0 AND paid_cents <= total_cents),
        status text NOT NULL CHECK (status IN ('draft', 'open', 'partially_paid', 'paid')),
        estimate_id uuid,
        journal_entry_id uuid,
        posted_at timestamptz,
        created_at timestamptz NOT NULL,
        CONSTRAINT invoices_external_id UNIQUE (organization_id, environment, external_invoice_id)
      );
      CREATE INDEX invoices_list ON invoices (organization_id, environment, created_at DESC, id DESC);
      CREATE INDEX invoices_customer ON invoices (customer_id);
      CREATE UNIQUE INDEX invoices_from_estimate ON invoices (estimate_id) WHERE estimate_id IS NOT NULL;

      CREATE TABLE payments (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        external_payment_id text NOT NULL,
        invoice_id uuid NOT NULL REFERENCES invoices(id),
        customer_id uuid NOT NULL,
        amount_cents bigint NOT NULL CHECK (amount_cents > 0),
        received_at text NOT NULL,
        received_date date NOT NULL,
        source text NOT NULL CHECK (source IN ('manual', 'processor')),
        processor text,
        currency text NOT NULL,
        status text NOT NULL CHECK (status IN ('posted', 'refunded')),
        event_id uuid,
        journal_entry_id uuid NOT NULL,
        refund_entry_id uuid,
        created_at timestamptz NOT NULL,
        CONSTRAINT payments_external_id UNIQUE (organization_id, environment, external_payment_id)
      );
      CREATE INDEX payments_list ON payments (organization_id, environment, created_at DESC, id DESC);
      CREATE INDEX payments_invoice ON payments (invoice_id);

      CREATE TABLE estimates (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        external_estimate_id text NOT NULL,
        customer_id uuid NOT NULL REFERENCES customers(id),
        issue_date date NOT NULL,
        expiry_date date CHECK (expiry_date >= issue_date),
        currency text NOT NULL,
        memo text,
        line_items jsonb NOT NULL,
        total_cents bigint NOT NULL CHECK (total_cents >= 0),
        status text NOT NULL CHECK (status IN ('draft', 'sent', 'accepted', 'declined', 'expired', 'converted')),
        invoice_id uuid REFERENCES invoices(id),
        created_at timestamptz NOT NULL,
        CONSTRAINT estimates_external_id UNIQUE (organization_id, environment, external_estimate_id)
      );
      CREATE INDEX estimates_list ON estimates (organization_id, environment, created_at DESC, id DESC);

      CREATE TABLE processor_payouts (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        external_payout_id text NOT NULL,
        processor text NOT NULL,
        payout_date date NOT NULL,
        gross_cents bigint NOT NULL CHECK (gross_cents >= 0),
        fee_cents bigint NOT NULL CHECK (fee_cents >= 0),
        net_cents bigint NOT NULL CHECK (net_cents >= 0),
        currency text NOT NULL,
        status text NOT NULL CHECK (status = 'created'),
        journal_entry_id uuid,
        created_at timestamptz NOT NULL,
        CONSTRAINT processor_payouts_net CHECK (gross_cents - fee_cents = net_cents),
        CONSTRAINT processor_payouts_external_id UNIQUE (organization_id, environment, external_payout_id)
      );
      CREATE INDEX processor_payouts_list ON processor_payouts (organization_id, environment, created_at DESC, id DESC);

      CREATE TABLE inbound_events (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        environment text NOT NULL CHECK (environment IN ('test', 'live')),
        external_event_id text NOT NULL,
        idempotency_key text,
        event_type text NOT NULL,
        payload jsonb NOT NULL,
        payload_hash text NOT NULL,
        status text NOT NULL CHECK (status IN ('processed', 'stored', 'failed')),
        details jsonb NOT NULL DEFAULT '[]',
        payment_id uuid REFERENCES payments(id),
        created_at timestamptz NOT NULL,
        CONSTRAINT inbound_events_external_id UNIQUE (organization_id, environment, external_event_id)
      );
      CREATE UNIQUE INDEX inbound_events_idempotency_key ON inbound_events (organization_id, environment, idempotency_key)
        WHERE idempotency_key IS NOT NULL;
    `);
  }
}
