import { accountId, DEFAULT_CHART, isUuid, type AccountDef, type LedgerEnvironment } from './accounts';
import { GENESIS_HASH, type ChainEntry, type ChainLine, chainHash } from './chain';
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

/**
 * SQL the caller runs as a named statement (prepared once per connection), `?` placeholders like
 * every statement of the repo. With libs/kit: `(s, values) => q(statement(s.name, s.sql), values)`.
 */
export interface NamedSql {
  readonly name: string;
  readonly sql: string;
}

/** Runs one named statement inside the caller's transaction; its rows. */
export type RunNamed = <R = Record<string, unknown>>(s: NamedSql, values: unknown[]) => Promise<R[]>;

/** One entry to write: its scope and a draft (checked again here) with its id. */
export interface EntryToWrite {
  scope: LedgerScope;
  entry: JournalEntryDraft & { id: string };
}

// The chain heads of the scopes written, locked in one stable order (no deadlock between groups).
// Used when the writer cannot predict a head: WRITE_CHAINED locks them itself.
const LOCK_HEADS: NamedSql = {
  name: 'ledger_lock_chain_heads',
  sql: `SELECT h.organization_id::text AS organization_id, h.environment, h.entries::text AS entries, h.head_hash
  FROM journal_chain_heads h JOIN unnest(?::uuid[], ?::text[]) AS k (organization_id, environment)
    ON h.organization_id = k.organization_id AND h.environment = k.environment
  ORDER BY h.organization_id, h.environment FOR UPDATE OF h`,
};
const CREATE_HEADS: NamedSql = {
  name: 'ledger_create_chain_heads',
  sql: `INSERT INTO journal_chain_heads (organization_id, environment) SELECT * FROM unnest(?::uuid[], ?::text[]) ON CONFLICT DO NOTHING`,
};

/**
 * The whole chained write in ONE statement, values as arrays (unnest()ed), any number of scopes,
 * entries and lines: locks the scopes' chain heads (sorted: no deadlock between writers), and only
 * if every head is where the writer predicted (`k.prev_*`) inserts the entries, their lines and moves
 * the heads; either way returns the heads as locked. Why one statement: the head stays locked from
 * here to COMMIT, and every writer of the organization waits for it, so the fewer round trips
 * between the lock and COMMIT the more postings per second one organization gets (each round trip
 * is a wake-up of two processes on a busy machine). Named: every posting runs it.
 */
const WRITE_CHAINED: NamedSql = { name: 'ledger_write_chained', sql: chainedSql() };

/**
 * WRITE_CHAINED's text; with a guard (ChainGuard), its CTEs and condition go first, the heads are
 * locked only when it holds, and its writes go last; with `also`, that INSERT before them.
 */
function chainedSql(opts: { guard?: ChainGuard; also?: AlsoInsert } = {}): string {
  const { guard, also } = opts;
  const gated = (cte: string) => `${cte}
    WHERE (SELECT ok FROM ok)`;
  return `WITH k AS MATERIALIZED (
    SELECT * FROM unnest(?::uuid[], ?::text[], ?::bigint[], ?::text[], ?::bigint[], ?::text[], ?::uuid[])
      AS k (organization_id, environment, prev_entries, prev_hash, entries, head_hash, head_entry_id)
  ), ${
    guard
      ? `${guard.ctes}, guard AS MATERIALIZED (
    SELECT ${guard.ok} AS ok
  ), `
      : ''
  }locked AS MATERIALIZED (
    SELECT h.organization_id, h.environment, h.entries, h.head_hash
    FROM journal_chain_heads h JOIN k ON h.organization_id = k.organization_id AND h.environment = k.environment${guard ? '\n    WHERE (SELECT ok FROM guard)' : ''}
    ORDER BY h.organization_id, h.environment FOR UPDATE OF h
  ), ok AS MATERIALIZED (
    SELECT count(*) = (SELECT count(*) FROM k) AND coalesce(bool_and(l.entries = k.prev_entries AND l.head_hash = k.prev_hash), false) AS ok
    FROM locked l JOIN k ON l.organization_id = k.organization_id AND l.environment = k.environment
  ), e AS (
    INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id, memo, reverses_entry_id, chain_seq, hash)
    ${gated('SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::date[], ?::text[], ?::uuid[], ?::text[], ?::uuid[], ?::bigint[], ?::text[])')}
  ), l AS (
    INSERT INTO journal_lines (entry_id, line_no, account_id, account_code, side, amount_cents, customer_id, invoice_id, vendor_id, bill_id, memo)
    ${gated('SELECT * FROM unnest(?::uuid[], ?::int[], ?::uuid[], ?::text[], ?::text[], ?::bigint[], ?::uuid[], ?::uuid[], ?::uuid[], ?::uuid[], ?::text[])')}
  ), h AS (
    UPDATE journal_chain_heads AS h SET entries = k.entries, head_hash = k.head_hash, head_entry_id = k.head_entry_id
    FROM k WHERE h.organization_id = k.organization_id AND h.environment = k.environment AND (SELECT ok FROM ok)
  )${
    also
      ? `, also AS (
    ${gated(also.sql)}
  )`
      : ''
  }${guard?.writes ? `, ${guard.writes}` : ''}
  SELECT (SELECT ok FROM ok) AS ok, organization_id::text AS organization_id, environment, entries::text AS entries, head_hash FROM locked`;
}

/**
 * Another INSERT the chained write makes in the same statement, only when it writes the entries
 * (the posting's outbox rows, whose events carry the entries' hashes): `sql` is an
 * `INSERT INTO ... SELECT ... FROM ...` with no WHERE clause and `?` placeholders; `values` its
 * values once the hashes are known (called again if the write chains again). `name` names it.
 */
export interface AlsoInsert {
  name: string;
  sql: string;
  values: (hashes: ReadonlyMap<string, string>) => unknown[];
}

/**
 * What the writer read before the chained write, checked in the same statement before anything is
 * written (libs/posting writes a group of posts in one statement this way, with no transaction of
 * its own: writeJournalEntriesGuarded). `ctes` are WITH items (comma separated) that lock what was
 * read and read it again (e.g. rows `FOR UPDATE` whose version the writer saw); `ok` is an SQL
 * boolean over them, true only when all of it is as read; `writes` are data-modifying WITH items
 * made only then, each ending in `WHERE (SELECT ok FROM ok)`. While `ok` is false the chain heads
 * are not even locked. `before` are the values of `ctes`, `after` those of `writes`; every value an
 * array, as the chained write's own (one `unnest` column each). `name` names the statement.
 */
export interface ChainGuard {
  name: string;
  ctes: string;
  ok: string;
  writes: string;
  before: unknown[];
  after: unknown[];
}

/** One part of a ChainGuard (e.g. the rows a writer read, the books' lock dates it checked). */
export interface GuardPart {
  /** WITH items, comma separated, and their values. */
  ctes: string;
  ctesValues: unknown[];
  /** An SQL boolean over them, and its values. */
  ok: string;
  okValues: unknown[];
  /** Data-modifying WITH items (each ending in `WHERE (SELECT ok FROM ok)`), and their values. */
  writes?: string;
  writesValues?: unknown[];
}

/** The guard of all `parts` (each must hold), values in the order of the statement's text. */
export function chainGuard(name: string, parts: readonly GuardPart[]): ChainGuard {
  return {
    name,
    ctes: parts.map((p) => p.ctes).join(', '),
    ok: parts.map((p) => `(${p.ok})`).join(' AND '),
    writes: parts.flatMap((p) => (p.writes ? [p.writes] : [])).join(', '),
    before: [...parts.flatMap((p) => p.ctesValues), ...parts.flatMap((p) => p.okValues)],
    after: parts.flatMap((p) => p.writesValues ?? []),
  };
}

const chainedCache = new Map<string, NamedSql>();
/** The chained write with `also` and a guard (the statement of each pair is made once). */
function writeChainedWith(opts: { guard?: ChainGuard; also?: AlsoInsert }): NamedSql {
  const name = [WRITE_CHAINED.name, opts.also?.name, opts.guard?.name].filter(Boolean).join('_');
  let s = chainedCache.get(name);
  if (!s) {
    s = { name, sql: chainedSql(opts) };
    chainedCache.set(name, s);
  }
  return s;
}

interface HeadRow {
  organization_id: string;
  environment: string;
  entries: string;
  head_hash: string;
}

/** A chain's head: the entries chained and the last hash. */
export interface ChainHead {
  entries: number;
  hash: string;
}

const keyOf = (s: LedgerScope) => `${s.organizationId.toLowerCase()}/${s.environment}`;
const headsOf = (rows: readonly HeadRow[]) => new Map(rows.map((r) => [`${r.organization_id}/${r.environment}`, { entries: Number(r.entries), hash: r.head_hash }]));

/**
 * What one writer process expects its chains' heads to be: what its own last write left (set before
 * COMMIT, so a second group of the same organization chains after the first while it commits). Only
 * a prediction: the write checks it against the locked head and, when it is wrong (another replica
 * wrote, or the predicted write rolled back), chains again from the locked head, one more round trip.
 */
export class ChainHeads {
  private readonly heads = new Map<string, ChainHead>();
  get(scope: LedgerScope): ChainHead | undefined {
    return this.heads.get(keyOf(scope));
  }
  set(scope: LedgerScope, head: ChainHead): void {
    if (this.heads.size >= 10_000) this.heads.clear(); // a bound; a cleared head costs one round trip
    this.heads.set(keyOf(scope), { ...head });
  }
  forget(scopes: Iterable<LedgerScope>): void {
    for (const s of scopes) this.heads.delete(keyOf(s));
  }
}

/**
 * Writes journal entries and their lines, chained, in one named statement (WRITE_CHAINED) when the
 * heads are as `options.heads` predicts, else two (the first only locks and reads the heads). The
 * only journal write path (libs/posting's Books runs it). Call it inside the transaction that makes
 * the state change (and writes the outbox rows); the scopes' charts must exist
 * (insertDefaultAccounts); the database checks each entry's balance at COMMIT. Returns each entry's
 * hash.
 */
export async function insertJournalEntries(
  run: RunNamed,
  entries: readonly EntryToWrite[],
  options: { chart?: readonly AccountDef[]; heads?: ChainHeads; also?: AlsoInsert } = {},
): Promise<Map<string, string>> {
  if (!entries.length) return new Map();
  // Checked: now chain them, in order, per scope, after the heads as predicted.
  const { built, scopes } = checkedEntries(entries, options.chart);
  const keys = [scopes.map((s) => s.organizationId), scopes.map((s) => s.environment)];
  /** Locks the heads (made first where missing) and reads them: exact until COMMIT. */
  const lockHeads = async () => {
    let rows = await run<HeadRow>(LOCK_HEADS, keys);
    if (rows.length < scopes.length) {
      await run(CREATE_HEADS, keys);
      rows = await run<HeadRow>(LOCK_HEADS, keys);
    }
    return headsOf(rows);
  };
  // A head this process cannot predict (its first write of the scope, or after a failure): lock
  // and read it first, a small statement, rather than send the whole write for nothing.
  const predicted = scopes.map((s) => options.heads?.get(s));
  let prev = predicted.every((h) => h !== undefined) ? new Map(scopes.map((s, i) => [keyOf(s), predicted[i]!])) : await lockHeads();
  const { also } = options;
  const statement = also ? writeChainedWith({ also }) : WRITE_CHAINED;
  for (let attempt = 0; attempt < 2 && prev.size === scopes.length; attempt++) {
    const write = chainedWrite(built, scopes, prev);
    const rows = await run<HeadRow & { ok: boolean }>(statement, also ? [...write.values, ...also.values(write.hashes)] : write.values);
    if (rows[0]?.ok === true) {
      for (const s of scopes) options.heads?.set(s, write.heads.get(keyOf(s))!);
      return write.hashes;
    }
    // Mispredicted, nothing written; the heads are locked now (held until COMMIT): chain after them.
    prev = rows.length < scopes.length ? await lockHeads() : headsOf(rows);
  }
  options.heads?.forget(scopes);
  throw new Error('journal chain heads could not be locked');
}

/**
 * The chained write as ONE statement that is a whole transaction (no BEGIN, no COMMIT of its own):
 * entries, lines, `also` and the guard's writes, only if the guard holds and every head is where
 * `heads` predicts. Returns the hashes, or null when it wrote nothing (a head it cannot predict or
 * predicted wrong, forgotten then, or the guard failed): the caller then writes the usual way, in
 * a transaction. The database checks each entry's balance at the statement's end.
 */
export async function writeJournalEntriesGuarded(
  run: RunNamed,
  entries: readonly EntryToWrite[],
  options: { chart?: readonly AccountDef[]; heads: ChainHeads; also?: AlsoInsert; guard: ChainGuard },
): Promise<Map<string, string> | null> {
  if (!entries.length) return null;
  const { built, scopes } = checkedEntries(entries, options.chart);
  const predicted = scopes.map((s) => options.heads.get(s));
  if (predicted.some((h) => h === undefined)) return null;
  const { also, guard } = options;
  const write = chainedWrite(built, scopes, new Map(scopes.map((s, i) => [keyOf(s), predicted[i]!])));
  const values = [
    ...write.values.slice(0, CHAIN_KEY_COLUMNS),
    ...guard.before,
    ...write.values.slice(CHAIN_KEY_COLUMNS),
    ...(also ? also.values(write.hashes) : []),
    ...guard.after,
  ];
  const rows = await run<HeadRow & { ok: boolean }>(writeChainedWith({ also, guard }), values);
  if (rows[0]?.ok !== true) {
    if (rows.length) options.heads.forget(scopes); // locked, so the guard held: a head was mispredicted
    return null;
  }
  for (const s of scopes) options.heads.set(s, write.heads.get(keyOf(s))!);
  return write.hashes;
}

/** The entries checked by the ledger (LedgerError if not), and their scopes in lock order (sorted: no deadlock between writers). */
function checkedEntries(entries: readonly EntryToWrite[], chart: readonly AccountDef[] = DEFAULT_CHART) {
  const codes = chart.map((a) => a.code);
  const built = entries.map(({ scope, entry }) => {
    if (!isUuid(entry.id)) throw new LedgerError('bad_entry', `entry id ${entry.id} is not a uuid`);
    return { scope, id: entry.id, v: buildEntry(entry, { accountCodes: codes }) };
  });
  const scopes = [...new Map(built.map(({ scope }) => [keyOf(scope), scope])).values()].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
  return { built, scopes };
}

/** The k columns of the chained write (its first values: the scopes and their heads before and after). */
const CHAIN_KEY_COLUMNS = 7;

/** The values of WRITE_CHAINED for the entries chained after `prev`; the heads they leave, their hashes. */
function chainedWrite(
  built: readonly { scope: LedgerScope; id: string; v: JournalEntryDraft }[],
  scopes: readonly LedgerScope[],
  prev: ReadonlyMap<string, ChainHead>,
): { values: unknown[]; heads: Map<string, ChainHead>; hashes: Map<string, string> } {
  const heads = new Map([...prev].map(([key, h]) => [key, { ...h }]));
  const hashes = new Map<string, string>();
  const last = new Map<string, string>();
  const e: unknown[][] = [[], [], [], [], [], [], [], [], [], []];
  const l: unknown[][] = [[], [], [], [], [], [], [], [], [], [], []];
  for (const { scope, id, v } of built) {
    const key = keyOf(scope);
    const head = heads.get(key)!;
    head.entries += 1;
    head.hash = chainHash(head.hash, chainEntryOf(scope, id, v));
    hashes.set(id, head.hash);
    last.set(key, id);
    const row = [id, scope.organizationId, scope.environment, v.entryDate, v.sourceType, v.sourceId, v.memo ?? null, v.reversesEntryId ?? null, head.entries, head.hash];
    row.forEach((x, i) => e[i]!.push(x));
    v.lines.forEach((x, i) => {
      const line = [
        id,
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
  const k: unknown[][] = [[], [], [], [], [], [], []];
  for (const s of scopes) {
    const key = keyOf(s);
    const before = prev.get(key)!;
    const after = heads.get(key)!;
    [s.organizationId, s.environment, before.entries, before.hash, after.entries, after.hash, last.get(key)!].forEach((x, i) => k[i]!.push(x));
  }
  return { values: [...k, ...e, ...l], heads, hashes };
}

/** What the chain hashes of an entry the writer holds (a checked draft). */
function chainEntryOf(scope: LedgerScope, id: string, v: JournalEntryDraft): ChainEntry {
  return {
    id,
    entryDate: v.entryDate,
    sourceType: v.sourceType,
    sourceId: v.sourceId,
    memo: v.memo ?? null,
    reversesEntryId: v.reversesEntryId ?? null,
    lines: v.lines.map((x): ChainLine => ({
      accountId: accountId(scope.organizationId, scope.environment, x.accountCode),
      accountCode: x.accountCode,
      side: x.side,
      amountCents: x.amountCents,
      customerId: x.customerId ?? null,
      invoiceId: x.invoiceId ?? null,
      vendorId: x.vendorId ?? null,
      billId: x.billId ?? null,
      memo: x.memo ?? null,
    })),
  };
}

/** What the verifier found in one chain. */
export interface ChainVerification {
  /** Entries checked (up to and including the first broken one). */
  entries: number;
  /** The head's hash as recorded (what the next entry chains to). */
  headHash: string;
  /** null when intact; else the first entry affected (for a deleted last entry, the deleted entry's id). */
  firstBrokenEntryId: string | null;
  /** Why it is broken (for operators; not part of the API reply). */
  reason: string | null;
}

/** A scope whose chain the admin verifier checks. */
export interface ChainScope extends LedgerScope {
  entries: number;
}

const READ_HEAD: NamedSql = {
  name: 'ledger_read_chain_head',
  sql: `SELECT entries::text AS entries, head_hash, head_entry_id::text AS head_entry_id, unchained_entries::text AS unchained_entries
  FROM journal_chain_heads WHERE organization_id = ? AND environment = ?`,
};
// One query per batch: the entries in chain order (keyset on journal_entries_chain), each with its
// lines as one JSON array of arrays in line order (an index probe of journal_lines_line_no per entry).
// JSON is only the transport: the canonical content is built in Node (chain.ts), never in SQL.
const CHAIN_BATCH: NamedSql = {
  name: 'ledger_chain_batch',
  sql: `SELECT e.id::text AS id, e.entry_date::text AS entry_date, e.source_type, e.source_id::text AS source_id, e.memo,
    e.reverses_entry_id::text AS reverses_entry_id, e.chain_seq::text AS seq, e.hash,
    (SELECT json_agg(json_build_array(l.account_id, l.account_code, l.side, l.amount_cents, l.customer_id, l.invoice_id, l.vendor_id, l.bill_id, l.memo) ORDER BY l.line_no)
       FROM journal_lines l WHERE l.entry_id = e.id) AS lines
  FROM journal_entries e WHERE e.organization_id = ? AND e.environment = ? AND e.chain_seq > ?
  ORDER BY e.chain_seq LIMIT ?`,
};
const UNCHAINED: NamedSql = {
  name: 'ledger_unchained_entries',
  sql: `SELECT count(*)::text AS n, (array_agg(id::text ORDER BY created_at DESC))[1] AS newest
  FROM journal_entries WHERE organization_id = ? AND environment = ? AND chain_seq IS NULL`,
};
const LIST_HEADS: NamedSql = {
  name: 'ledger_list_chain_heads',
  sql: `SELECT organization_id::text AS organization_id, environment, entries::text AS entries
  FROM journal_chain_heads WHERE (organization_id, environment) > (?::uuid, ?::text)
  ORDER BY organization_id, environment LIMIT ?`,
};
/** The verifier reads head and entries in one snapshot: run first in its transaction. */
export const VERIFY_SNAPSHOT: NamedSql = { name: 'ledger_verify_snapshot', sql: 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY' };

/** A line as CHAIN_BATCH sends it (node-postgres parses the json): the columns of ChainLine in its order. */
type LineTuple = [string, string, 'debit' | 'credit', number, string | null, string | null, string | null, string | null, string | null];
interface EntryRow {
  id: string;
  entry_date: string;
  source_type: string;
  source_id: string;
  memo: string | null;
  reverses_entry_id: string | null;
  seq: string;
  hash: string | null;
  lines: LineTuple[] | null;
}

/**
 * Re-computes the chain of one scope from the tables, in keyset batches of `batch` entries (memory
 * stays one batch): every chained entry must follow the previous one (chain_seq n+1) and carry the
 * hash of the previous hash and its content; the last one must be the head; the unchained entries
 * (written before version 3) must be as many as the head counts. Run it in a transaction that ran
 * VERIFY_SNAPSHOT first, so that head and entries are of one instant.
 */
export async function verifyJournalChain(run: RunNamed, scope: LedgerScope, options: { batch?: number; onBatch?: (entries: number) => void } = {}): Promise<ChainVerification> {
  const batch = options.batch ?? 1000;
  const [head] = await run<{ entries: string; head_hash: string; head_entry_id: string | null; unchained_entries: string }>(READ_HEAD, [scope.organizationId, scope.environment]);
  const headEntries = Number(head?.entries ?? 0);
  const headHash = head?.head_hash ?? GENESIS_HASH;
  let hash = GENESIS_HASH;
  let seq = 0;
  const broken = (id: string | null, reason: string): ChainVerification => ({ entries: seq, headHash, firstBrokenEntryId: id, reason });
  /** Chains one batch on; the verdict at its first broken entry, else null. */
  const checkBatch = (rows: readonly EntryRow[]): ChainVerification | null => {
    for (const r of rows) {
      if (Number(r.seq) !== seq + 1) {
        seq += 1;
        return broken(r.id, `entry ${r.id} is number ${r.seq} of the chain, expected ${seq}: an entry before it is missing`);
      }
      seq += 1;
      if (seq > headEntries) return broken(r.id, `entry ${r.id} is past the chain's head (${headEntries} entries)`);
      const entry: ChainEntry = {
        id: r.id,
        entryDate: r.entry_date,
        sourceType: r.source_type,
        sourceId: r.source_id,
        memo: r.memo,
        reversesEntryId: r.reverses_entry_id,
        lines: (r.lines ?? []).map(([accountId, accountCode, side, amountCents, customerId, invoiceId, vendorId, billId, memo]): ChainLine => ({
          accountId,
          accountCode,
          side,
          amountCents,
          customerId,
          invoiceId,
          vendorId,
          billId,
          memo,
        })),
      };
      hash = chainHash(hash, entry);
      if (hash !== r.hash) return broken(r.id, `entry ${r.id} does not match its hash`);
    }
    return null;
  };
  const page = (after: number) => run<EntryRow>(CHAIN_BATCH, [scope.organizationId, scope.environment, after, batch]);
  // One batch ahead: the next batch's query (keyset after this batch's last entry) runs in Postgres
  // while this one is hashed here. Used only if this batch is intact (its last entry is then number
  // `seq`); else awaited and dropped, so that nothing runs in the transaction after the verifier.
  let next: Promise<EntryRow[]> | null = page(0);
  while (next) {
    const rows: EntryRow[] = await next;
    next = rows.length === batch ? page(Number(rows[batch - 1]!.seq)) : null;
    const found = checkBatch(rows);
    if (found) {
      await next?.catch(() => undefined);
      return found;
    }
    options.onBatch?.(rows.length);
  }
  if (seq < headEntries || hash !== headHash) {
    return broken(head?.head_entry_id ?? null, `the chain ends at entry ${seq} but its head is entry ${headEntries}: entries at its end are missing`);
  }
  const [unchained] = await run<{ n: string; newest: string | null }>(UNCHAINED, [scope.organizationId, scope.environment]);
  if (Number(unchained?.n ?? 0) !== Number(head?.unchained_entries ?? 0)) {
    return broken(unchained?.newest ?? null, `${unchained?.n ?? 0} entries have no place in the chain, ${head?.unchained_entries ?? 0} were written before it started`);
  }
  return { entries: seq, headHash, firstBrokenEntryId: null, reason: null };
}

/** The chains of every scope, in key order, `batch` at a time (the admin verifier's list). */
export async function* chainScopes(run: RunNamed, batch = 500): AsyncGenerator<ChainScope> {
  let after = ['00000000-0000-0000-0000-000000000000', ''];
  for (;;) {
    const rows = await run<{ organization_id: string; environment: LedgerEnvironment; entries: string }>(LIST_HEADS, [...after, batch]);
    for (const r of rows) yield { organizationId: r.organization_id, environment: r.environment, entries: Number(r.entries) };
    if (rows.length < batch) return;
    const last = rows[rows.length - 1]!;
    after = [last.organization_id, last.environment];
  }
}
