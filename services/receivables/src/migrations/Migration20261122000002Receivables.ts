import { Migration } from '@mikro-orm/migrations';
import { scopedTable } from '@acct/kit';
import { lineDocumentDdl } from '@acct/posting';

export class Migration20261122000002Receivables extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      ${scopedTable('invoices', 'external_invoice_id')`
        customer_id uuid NOT NULL REFERENCES customers(id),
        invoice_number text NOT NULL,
        ${lineDocumentDdl({ ownDate: 'due_date date NOT NULL CHECK (due_date >= issue_date)' })},
        -- Never more paid than billed, whatever code runs: the last guard against overpayment.
        paid_cents bigint NOT NULL DEFAULT 0 CHECK (paid_cents >= 0 AND paid_cents <= total_cents),
        status text NOT NULL CHECK (status IN ('draft', 'open', 'partially_paid', 'paid')),
        estimate_id uuid,
        journal_entry_id uuid,
        posted_at timestamptz,
        created_at timestamptz NOT NULL
      `}
      CREATE INDEX invoices_customer ON invoices (customer_id);
      CREATE UNIQUE INDEX invoices_from_estimate ON invoices (estimate_id) WHERE estimate_id IS NOT NULL;

      ${scopedTable('payments', 'external_payment_id')`
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
        created_at timestamptz NOT NULL
      `}
      CREATE INDEX payments_invoice ON payments (invoice_id);

      ${scopedTable('estimates', 'external_estimate_id')`
        customer_id uuid NOT NULL REFERENCES customers(id),
        ${lineDocumentDdl({ ownDate: 'expiry_date date CHECK (expiry_date >= issue_date)' })},
        status text NOT NULL CHECK (status IN ('draft', 'sent', 'accepted', 'declined', 'expired', 'converted')),
        invoice_id uuid REFERENCES invoices(id),
        created_at timestamptz NOT NULL
      `}

      ${scopedTable('processor_payouts', 'external_payout_id')`
        processor text NOT NULL,
        payout_date date NOT NULL,
        gross_cents bigint NOT NULL CHECK (gross_cents >= 0),
        fee_cents bigint NOT NULL CHECK (fee_cents >= 0),
        net_cents bigint NOT NULL CHECK (net_cents >= 0),
        currency text NOT NULL,
        status text NOT NULL CHECK (status = 'created'),
        journal_entry_id uuid,
        created_at timestamptz NOT NULL,
        CONSTRAINT processor_payouts_net CHECK (gross_cents - fee_cents = net_cents)
      `}

      ${scopedTable('inbound_events', 'external_event_id', { listIndex: false })`
        idempotency_key text,
        event_type text NOT NULL,
        payload jsonb NOT NULL,
        payload_hash text NOT NULL,
        status text NOT NULL CHECK (status IN ('processed', 'stored', 'failed')),
        details jsonb NOT NULL DEFAULT '[]',
        payment_id uuid REFERENCES payments(id),
        created_at timestamptz NOT NULL
      `}
      CREATE UNIQUE INDEX inbound_events_idempotency_key ON inbound_events (organization_id, environment, idempotency_key)
        WHERE idempotency_key IS NOT NULL;
    `);
  }
}
