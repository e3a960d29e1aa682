import { Migration } from '@mikro-orm/migrations';
import { scopedTable } from '@acct/kit';
import { lineDocumentDdl } from '@acct/posting';

export class Migration20261123000001Payables extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      ${scopedTable('vendors', 'external_vendor_id')`
        display_name text NOT NULL,
        vendor_type text NOT NULL CHECK (vendor_type IN ('contractor', 'business')),
        email text,
        is_1099_eligible boolean NOT NULL,
        w9_on_file boolean NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      `}

      ${scopedTable('bills', 'external_bill_id')`
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        bill_number text NOT NULL,
        ${lineDocumentDdl({ ownDate: 'due_date date NOT NULL CHECK (due_date >= issue_date)', beforeTotal: ['expense_account_code text NOT NULL'] })},
        -- Allocated by posted vendor payments: never more than billed, whatever code runs.
        paid_cents bigint NOT NULL DEFAULT 0 CHECK (paid_cents >= 0 AND paid_cents <= total_cents),
        status text NOT NULL CHECK (status IN ('draft', 'posted', 'reversed')),
        journal_entry_id uuid,
        reversal_entry_id uuid,
        reversal_reason text,
        posted_at timestamptz,
        reversed_at timestamptz,
        created_at timestamptz NOT NULL,
        -- Only a posted bill carries payments: a draft or reversed bill has none (the last guard
        -- against a payment landing on a bill that a racing reversal took away).
        CONSTRAINT bills_paid_only_when_posted CHECK (status = 'posted' OR paid_cents = 0)
      `}
      CREATE INDEX bills_vendor ON bills (vendor_id);

      ${scopedTable('vendor_payments', 'external_vendor_payment_id')`
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        amount_cents bigint NOT NULL CHECK (amount_cents > 0),
        payment_date date NOT NULL,
        cash_account_code text NOT NULL,
        allocations jsonb NOT NULL,
        currency text NOT NULL,
        memo text,
        status text NOT NULL CHECK (status IN ('ready', 'posted', 'reversed')),
        journal_entry_id uuid,
        reversal_entry_id uuid,
        reversal_reason text,
        posted_at timestamptz,
        reversed_at timestamptz,
        created_at timestamptz NOT NULL
      `}
      CREATE INDEX vendor_payments_vendor ON vendor_payments (vendor_id);
    `);
  }
}
