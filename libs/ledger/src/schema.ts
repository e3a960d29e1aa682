import { accountId, DEFAULT_CHART, isUuid, type AccountDef, type LedgerEnvironment } from './accounts';
import { buildEntry, type JournalEntryDraft } from './entry';
import { LedgerError } from './money';

/**
 * Runs one statement inside the caller's transaction, `?` placeholders. With MikroORM pass
 * `(sql, params) => em.execute(sql, params)` on the transactional EntityManager.
 */
export type Execute = (sql: string, params: unknown[]) => Promise<unknown>;

export interface LedgerScope {
  organizationId: string;
  environment: LedgerEnvironment;
}

/** SQLSTATE of the commit-time refusal of an unbalanced or empty entry (check_violation). */
export const UNBALANCED_SQLSTATE = '23514';

/** One version of a shared table set's DDL. */
export interface DdlVersion {
  version: number;
  sql: string;
}

/**
 * Version 1 of the ledger tables. FROZEN: migrations that shipped run exactly this text; change the
 * ledger by adding version 2 to LEDGER_DDL, never by editing this (a test holds the checksums).
 * Names are unqualified: the migration runs with search_path = the owning service's schema.
 * Contains no `?` (MikroORM/knex would read it as a placeholder).
 */
const LEDGER_DDL_V1 = `
    CREATE TABLE ledger_accounts (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL,
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      code text NOT NULL,
      name text NOT NULL,
      type text NOT NULL CHECK (type IN ('asset', 'liability', 'equity', 'revenue', 'expense')),
      subtype text CHECK (subtype IN ('cash', 'bank', 'receivable', 'clearing', 'payable')),
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT ledger_accounts_code UNIQUE (organization_id, environment, code)
    );

    CREATE TABLE journal_entries (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL,
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      entry_date date NOT NULL,
      source_type text NOT NULL,
      source_id uuid NOT NULL,
      memo text,
      reverses_entry_id uuid REFERENCES journal_entries (id),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX journal_entries_source ON journal_entries (organization_id, environment, source_type, source_id);
    -- An entry is reversed at most once, even when two reversals race.
    CREATE UNIQUE INDEX journal_entries_reversed_once ON journal_entries (reverses_entry_id) WHERE reverses_entry_id IS NOT NULL;

    CREATE TABLE journal_lines (
      id bigserial PRIMARY KEY,
      entry_id uuid NOT NULL REFERENCES journal_entries (id),
      line_no int NOT NULL CHECK (line_no >= 1),
      account_id uuid NOT NULL REFERENCES ledger_accounts (id),
      account_code text NOT NULL,
      side text NOT NULL CHECK (side IN ('debit', 'credit')),
      amount_cents bigint NOT NULL CHECK (amount_cents > 0),
      customer_id uuid,
      invoice_id uuid,
      vendor_id uuid,
      bill_id uuid,
      memo text,
      -- Also the index on entry_id (its leading column).
      CONSTRAINT journal_lines_line_no UNIQUE (entry_id, line_no)
    );
    CREATE INDEX journal_lines_account ON journal_lines (account_id);

    -- Entries are immutable: a correction is a reversing entry. Statement level, so TRUNCATE is caught too.
    CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '% on % refused: journal entries are immutable, post a reversing entry', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'P0001';
    END
    $$;
    CREATE TRIGGER journal_entries_immutable BEFORE UPDATE OR DELETE OR TRUNCATE ON journal_entries
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
    CREATE TRIGGER journal_lines_immutable BEFORE UPDATE OR DELETE OR TRUNCATE ON journal_lines
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();

    -- Balance, checked at COMMIT (lines are inserted after their entry, one statement or many).
    -- SET search_path FROM CURRENT pins the service's schema, whatever the committing session's path.
    -- No race: each transaction sees only committed entries (balanced) plus its own rows, so it
    -- commits only if its own rows balance.
    CREATE FUNCTION journal_entry_check_balanced() RETURNS trigger LANGUAGE plpgsql
      SET search_path FROM CURRENT AS $$
    DECLARE
      v_entry journal_entries%ROWTYPE;
      v_lines bigint;
      v_debit numeric;
      v_credit numeric;
    BEGIN
      IF TG_TABLE_NAME = 'journal_entries' THEN
        SELECT * INTO v_entry FROM journal_entries WHERE id = NEW.id;
      ELSE
        SELECT * INTO v_entry FROM journal_entries WHERE id = NEW.entry_id;
      END IF;
      SELECT count(*),
             coalesce(sum(amount_cents) FILTER (WHERE side = 'debit'), 0),
             coalesce(sum(amount_cents) FILTER (WHERE side = 'credit'), 0)
        INTO v_lines, v_debit, v_credit
        FROM journal_lines WHERE entry_id = v_entry.id;
      IF v_lines = 0 THEN
        RAISE EXCEPTION 'journal entry % has no lines', v_entry.id USING ERRCODE = '23514';
      END IF;
      IF v_debit <> v_credit THEN
        RAISE EXCEPTION 'journal entry % is unbalanced: debits % <> credits %', v_entry.id, v_debit, v_credit
          USING ERRCODE = '23514';
      END IF;
      -- A line's account must belong to the entry's organization and environment and carry the line's code.
      IF EXISTS (
        SELECT 1 FROM journal_lines l JOIN ledger_accounts a ON a.id = l.account_id
         WHERE l.entry_id = v_entry.id
           AND (a.organization_id <> v_entry.organization_id OR a.environment <> v_entry.environment OR a.code <> l.account_code)
      ) THEN
        RAISE EXCEPTION 'journal entry % has a line whose account is not its organization''s and environment''s account of that code', v_entry.id
          USING ERRCODE = '23514';
      END IF;
      RETURN NULL;
    END
    $$;
    -- Fires once per line (entries are small, bounded in code) and once per entry, so an entry with
    -- no line is refused too. Deferrable only changes when it is checked, never whether.
    CREATE CONSTRAINT TRIGGER journal_entries_balanced AFTER INSERT ON journal_entries
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION journal_entry_check_balanced();
    CREATE CONSTRAINT TRIGGER journal_lines_balanced AFTER INSERT ON journal_lines
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION journal_entry_check_balanced();
  `;

/**
 * Version 2: the balance is checked once per entry, not once per line (v1 fired the full check at
 * COMMIT for the entry and again for each of its lines). The entry's deferred trigger alone checks
 * its lines at COMMIT; it sees every line the transaction added, in any statement. What v1's line
 * trigger also caught, a line added to an entry an earlier transaction committed, is now refused at
 * once, per statement: a line may only join an entry written by its own transaction (written_in,
 * the writing transaction's id; savepoints share it). Entries of v1 have none: they take no line.
 * FROZEN once shipped, like v1. Contains no `?`.
 */
const LEDGER_DDL_V2 = `
    -- Two steps, so that existing rows keep NULL and the table is not rewritten.
    ALTER TABLE journal_entries ADD COLUMN written_in xid8;
    ALTER TABLE journal_entries ALTER COLUMN written_in SET DEFAULT pg_current_xact_id();

    DROP TRIGGER journal_lines_balanced ON journal_lines;

    -- Fired only by journal_entries_balanced now: one query for the count, the sums and the accounts.
    CREATE OR REPLACE FUNCTION journal_entry_check_balanced() RETURNS trigger LANGUAGE plpgsql
      SET search_path FROM CURRENT AS $$
    DECLARE
      v_lines bigint;
      v_debit numeric;
      v_credit numeric;
      v_foreign boolean;
    BEGIN
      SELECT count(*),
             coalesce(sum(l.amount_cents) FILTER (WHERE l.side = 'debit'), 0),
             coalesce(sum(l.amount_cents) FILTER (WHERE l.side = 'credit'), 0),
             coalesce(bool_or(a.organization_id <> NEW.organization_id OR a.environment <> NEW.environment OR a.code <> l.account_code), false)
        INTO v_lines, v_debit, v_credit, v_foreign
        FROM journal_lines l JOIN ledger_accounts a ON a.id = l.account_id
       WHERE l.entry_id = NEW.id;
      IF v_lines = 0 THEN
        RAISE EXCEPTION 'journal entry % has no lines', NEW.id USING ERRCODE = '23514';
      END IF;
      IF v_debit <> v_credit THEN
        RAISE EXCEPTION 'journal entry % is unbalanced: debits % <> credits %', NEW.id, v_debit, v_credit
          USING ERRCODE = '23514';
      END IF;
      -- A line's account must belong to the entry's organization and environment and carry the line's code.
      IF v_foreign THEN
        RAISE EXCEPTION 'journal entry % has a line whose account is not its organization''s and environment''s account of that code', NEW.id
          USING ERRCODE = '23514';
      END IF;
      RETURN NULL;
    END
    $$;

    -- Once per INSERT statement (however many lines): every line's entry was written by this
    -- transaction, so that entry's deferred check (queued when it was inserted) sees the line.
    CREATE FUNCTION journal_lines_refuse_committed_entry() RETURNS trigger LANGUAGE plpgsql
      SET search_path FROM CURRENT AS $$
    DECLARE
      v_entry uuid;
    BEGIN
      SELECT n.entry_id INTO v_entry FROM new_lines n
       WHERE NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.id = n.entry_id AND e.written_in = pg_current_xact_id())
       LIMIT 1;
      IF FOUND THEN
        RAISE EXCEPTION 'journal entry % was committed by another transaction: lines cannot be added to it, post a new entry', v_entry
          USING ERRCODE = '23514';
      END IF;
      RETURN NULL;
    END
    $$;
    CREATE TRIGGER journal_lines_same_transaction AFTER INSERT ON journal_lines
      REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION journal_lines_refuse_committed_entry();
  `;

/** The ledger's DDL, oldest version first; each posting service runs every version as a migration. */
export const LEDGER_DDL: readonly DdlVersion[] = Object.freeze([
  { version: 1, sql: LEDGER_DDL_V1 },
  { version: 2, sql: LEDGER_DDL_V2 },
]);

/**
 * Creates the chart's accounts for one organization and environment, with their stable ids.
 * Idempotent; two transactions racing here both succeed (the second waits, then does nothing).
 */
export async function insertDefaultAccounts(execute: Execute, organizationId: string, environment: LedgerEnvironment, chart: readonly AccountDef[] = DEFAULT_CHART): Promise<void> {
  if (chart.length === 0) return;
  const params: unknown[] = [];
  const rows = chart.map((a) => {
    params.push(accountId(organizationId, environment, a.code), organizationId, environment, a.code, a.name, a.type, a.subtype);
    return '(?, ?, ?, ?, ?, ?, ?)';
  });
  await execute(`INSERT INTO ledger_accounts (id, organization_id, environment, code, name, type, subtype) VALUES ${rows.join(', ')} ON CONFLICT DO NOTHING`, params);
}

/**
 * SQL the caller runs as a named statement (prepared once per connection), `?` placeholders like
 * every statement of the repo. With libs/kit: `(s, values) => q(statement(s.name, s.sql), values)`.
 */
export interface NamedSql {
  readonly name: string;
  readonly sql: string;
}

/** Runs one named statement inside the caller's transaction. */
export type RunNamed = (s: NamedSql, values: unknown[]) => Promise<unknown>;

/** One entry to write: its scope and a draft (checked again here) with its id. */
export interface EntryToWrite {
  scope: LedgerScope;
  entry: JournalEntryDraft & { id: string };
}

// Two fixed statements for any number of entries and lines: values as arrays, unnest()ed. Named:
// every posting writes them (bench post-invoice, create-bill).
const INSERT_ENTRIES: NamedSql = {
  name: 'ledger_insert_entries',
  sql: `INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id, memo, reverses_entry_id)
  SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::date[], ?::text[], ?::uuid[], ?::text[], ?::uuid[])`,
};
const INSERT_LINES: NamedSql = {
  name: 'ledger_insert_lines',
  sql: `INSERT INTO journal_lines (entry_id, line_no, account_id, account_code, side, amount_cents, customer_id, invoice_id, vendor_id, bill_id, memo)
  SELECT * FROM unnest(?::uuid[], ?::int[], ?::uuid[], ?::text[], ?::text[], ?::bigint[], ?::uuid[], ?::uuid[], ?::uuid[], ?::uuid[], ?::text[])`,
};

/**
 * Writes journal entries and their lines, set-based: one INSERT of the entries and one of all their
 * lines, each a named statement. The only journal write path (libs/posting's Books runs it). Call it
 * inside the transaction that makes the state change (and writes the outbox rows); the scopes'
 * charts must exist (insertDefaultAccounts); the database checks each entry's balance at COMMIT.
 */
export async function insertJournalEntries(run: RunNamed, entries: readonly EntryToWrite[], options: { chart?: readonly AccountDef[] } = {}): Promise<void> {
  if (!entries.length) return;
  const codes = (options.chart ?? DEFAULT_CHART).map((a) => a.code);
  const e: unknown[][] = [[], [], [], [], [], [], [], []];
  const l: unknown[][] = [[], [], [], [], [], [], [], [], [], [], []];
  for (const { scope, entry } of entries) {
    if (!isUuid(entry.id)) throw new LedgerError('bad_entry', `entry id ${entry.id} is not a uuid`);
    const v = buildEntry(entry, { accountCodes: codes });
    const row = [entry.id, scope.organizationId, scope.environment, v.entryDate, v.sourceType, v.sourceId, v.memo ?? null, v.reversesEntryId ?? null];
    row.forEach((x, i) => e[i]!.push(x));
    v.lines.forEach((x, i) => {
      const line = [
        entry.id,
        i + 1,
        accountId(scope.organizationId, scope.environment, x.accountCode),
        x.accountCode,
        x.side,
        x.amountCents,
        x.customerId ?? null,
        x.invoiceId ?? null,
        x.vendorId ?? null,
        x.billId ?? null,
        x.memo ?? null,
      ];
      line.forEach((y, j) => l[j]!.push(y));
    });
  }
  await run(INSERT_ENTRIES, e);
  await run(INSERT_LINES, l);
}
