import { Migration } from '@mikro-orm/migrations';
import { JOURNAL_LINE_POSTING_COLUMNS } from '@acct/ledger';

/** The projection: journal entries and lines as posted, the documents' due dates, customers and vendors. */
export class Migration20261123000001Reporting extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE journal_entries (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        environment text NOT NULL,
        entry_date date NOT NULL,
        source_type text NOT NULL,
        source_id uuid NOT NULL,
        memo text,
        reverses_entry_id uuid,
        posted_at timestamptz NOT NULL,
        event_id uuid NOT NULL
      );
      CREATE INDEX journal_entries_list ON journal_entries (organization_id, environment, posted_at DESC, id DESC);
      CREATE INDEX journal_entries_source ON journal_entries (organization_id, environment, source_type, source_id);
      CREATE INDEX journal_entries_reverses ON journal_entries (reverses_entry_id) WHERE reverses_entry_id IS NOT NULL;

      CREATE TABLE journal_lines (
        entry_id uuid NOT NULL REFERENCES journal_entries(id) ON DELETE CASCADE,
        line_no integer NOT NULL,
        organization_id uuid NOT NULL,
        environment text NOT NULL,
        entry_date date NOT NULL,
        account_id uuid NOT NULL,
        ${JOURNAL_LINE_POSTING_COLUMNS}
        PRIMARY KEY (entry_id, line_no)
      );
      CREATE INDEX journal_lines_account ON journal_lines (organization_id, environment, account_code, entry_date) INCLUDE (side, amount_cents);

      CREATE TABLE documents (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        environment text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('invoice', 'bill')),
        party_id uuid NOT NULL,
        issue_date date NOT NULL,
        due_date date NOT NULL
      );

      CREATE TABLE parties (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        environment text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('customer', 'vendor')),
        display_name text NOT NULL,
        is_1099_eligible boolean NOT NULL DEFAULT false,
        w9_on_file boolean NOT NULL DEFAULT false,
        version timestamptz NOT NULL
      );
    `);
  }
}
