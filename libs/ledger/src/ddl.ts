/** The ledger's tables: their DDL, version by version, and the default chart's accounts. */
import { accountId, DEFAULT_CHART, type AccountDef, type LedgerEnvironment } from './accounts';
import { GENESIS_HASH } from './chain';

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
 * The PL/pgSQL of the entry check's refusals (UNBALANCED_SQLSTATE), in order: an entry (`entry`, its
 * id) with no line (v_lines), whose lines' debits (v_debit) and credits (v_credit) differ, or with a
 * line of another organization's or environment's account or of another code (`foreignLine`, a
 * condition). FROZEN: shipped migrations run this text.
 */
function entryRefusals(entry: string, foreignLine: string): string {
  return `
      IF v_lines = 0 THEN
        RAISE EXCEPTION 'journal entry % has no lines', ${entry} USING ERRCODE = '${UNBALANCED_SQLSTATE}';
      END IF;
      IF v_debit <> v_credit THEN
        RAISE EXCEPTION 'journal entry % is unbalanced: debits % <> credits %', ${entry}, v_debit, v_credit
          USING ERRCODE = '${UNBALANCED_SQLSTATE}';
      END IF;
      -- A line's account must belong to the entry's organization and environment and carry the line's code.
      IF ${foreignLine} THEN
        RAISE EXCEPTION 'journal entry % has a line whose account is not its organization''s and environment''s account of that code', ${entry}
          USING ERRCODE = '${UNBALANCED_SQLSTATE}';
      END IF;`;
}

/**
 * What a journal line posts, as DDL columns (each with its trailing comma): its account's code, side
 * and amount, and the party and document it concerns. The ledger's journal_lines (v1) and
 * reporting's copy of them have these columns. FROZEN: shipped migrations run this text.
 */
export const JOURNAL_LINE_POSTING_COLUMNS = `
      account_code text NOT NULL,
      side text NOT NULL CHECK (side IN ('debit', 'credit')),
      amount_cents bigint NOT NULL CHECK (amount_cents > 0),
      customer_id uuid,
      invoice_id uuid,
      vendor_id uuid,
      bill_id uuid,`;

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
      ${JOURNAL_LINE_POSTING_COLUMNS}
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
      ${entryRefusals(
        'v_entry.id',
        `EXISTS (
        SELECT 1 FROM journal_lines l JOIN ledger_accounts a ON a.id = l.account_id
         WHERE l.entry_id = v_entry.id
           AND (a.organization_id <> v_entry.organization_id OR a.environment <> v_entry.environment OR a.code <> l.account_code)
      )`,
      )}
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
      ${entryRefusals('NEW.id', 'v_foreign')}
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

/**
 * Version 3: the tamper-evident journal (API-DECISIONS §12). Each entry written from now on carries
 * its place in the chain of its organization and environment (chain_seq, 1, 2, ...) and its hash
 * (libs/ledger chain.ts). journal_chain_heads holds each chain's head: the entries chained, the last
 * hash and entry; the writer locks it FOR UPDATE just before it inserts, so chain order is commit
 * order. Entries written before this version stay unchained (chain_seq and hash NULL): the chain
 * starts after them, and the head counts them (unchained_entries) so that one deleted or added
 * without a chain shows. FROZEN once shipped. Contains no `?`.
 */
const LEDGER_DDL_V3 = `
    ALTER TABLE journal_entries ADD COLUMN chain_seq bigint;
    ALTER TABLE journal_entries ADD COLUMN hash text CHECK (hash ~ '^[0-9a-f]{64}$');
    -- Also the verifier's keyset order (and its count of unchained entries: NULLs are indexed).
    CREATE UNIQUE INDEX journal_entries_chain ON journal_entries (organization_id, environment, chain_seq);

    CREATE TABLE journal_chain_heads (
      organization_id uuid NOT NULL,
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      entries bigint NOT NULL DEFAULT 0,
      head_hash text NOT NULL DEFAULT '${GENESIS_HASH}',
      head_entry_id uuid,
      unchained_entries bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (organization_id, environment)
    );
    INSERT INTO journal_chain_heads (organization_id, environment, unchained_entries)
      SELECT organization_id, environment, count(*) FROM journal_entries GROUP BY organization_id, environment;
  `;

/**
 * Version 4: the ledger's checks find rows by index whatever the size of the tables when a
 * connection first planned them. A PL/pgSQL function keeps its statements' plans for the life of
 * the connection (until an ANALYZE of the table): planned while journal_entries was small (a new
 * deployment, a new test stack), the same-transaction check of v2 kept a sequential scan of every
 * entry, once per posting statement, however large the journal grew (15.6 ms at 200,000 entries,
 * against 0.12 ms through the primary key; 0.62 ms per group commit of invoice posts in
 * bench:compare). No query of these functions is better served by a sequential scan: each looks up
 * one entry's rows. FROZEN once shipped. Contains no `?`.
 */
const LEDGER_DDL_V4 = `
    ALTER FUNCTION journal_lines_refuse_committed_entry() SET enable_seqscan = off;
    ALTER FUNCTION journal_entry_check_balanced() SET enable_seqscan = off;
  `;

/** The ledger's DDL, oldest version first; each posting service runs every version as a migration. */
export const LEDGER_DDL: readonly DdlVersion[] = Object.freeze([
  { version: 1, sql: LEDGER_DDL_V1 },
  { version: 2, sql: LEDGER_DDL_V2 },
  { version: 3, sql: LEDGER_DDL_V3 },
  { version: 4, sql: LEDGER_DDL_V4 },
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
