/** The chained write: journal entries, their lines and chain heads in one statement. */
import { accountId, DEFAULT_CHART, isUuid, type AccountDef } from './accounts';
import { chainEntryOf, chainHash } from './chain';
import { buildEntry, type JournalEntryDraft } from './entry';
import { LedgerError } from './money';
import type { LedgerScope } from './ddl';

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

/** WRITE_CHAINED's text; with `also`, those writes last, in order. */
function chainedSql(also: readonly AlsoWrite[] = []): string {
  const gate = '(SELECT ok FROM ok)';
  const gated = (cte: string) => `${cte}
    WHERE ${gate}`;
  return `WITH k AS MATERIALIZED (
    SELECT * FROM unnest(?::uuid[], ?::text[], ?::bigint[], ?::text[], ?::bigint[], ?::text[], ?::uuid[])
      AS k (organization_id, environment, prev_entries, prev_hash, entries, head_hash, head_entry_id)
  ), locked AS MATERIALIZED (
    SELECT h.organization_id, h.environment, h.entries, h.head_hash
    FROM journal_chain_heads h JOIN k ON h.organization_id = k.organization_id AND h.environment = k.environment
    ORDER BY h.organization_id, h.environment FOR UPDATE OF h
  ), ok AS MATERIALIZED (
    SELECT count(*) = (SELECT count(*) FROM k) AND coalesce(bool_and(l.entries = k.prev_entries AND l.head_hash = k.prev_hash), true) AS ok
    FROM locked l JOIN k ON l.organization_id = k.organization_id AND l.environment = k.environment
  ), e AS (
    INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id, memo, reverses_entry_id, chain_seq, hash)
    ${gated('SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::date[], ?::text[], ?::uuid[], ?::text[], ?::uuid[], ?::bigint[], ?::text[])')}
  ), l AS (
    INSERT INTO journal_lines (entry_id, line_no, account_id, account_code, side, amount_cents, customer_id, invoice_id, vendor_id, bill_id, memo)
    ${gated('SELECT * FROM unnest(?::uuid[], ?::int[], ?::uuid[], ?::text[], ?::text[], ?::bigint[], ?::uuid[], ?::uuid[], ?::uuid[], ?::uuid[], ?::text[])')}
  ), h AS (
    UPDATE journal_chain_heads AS h SET entries = k.entries, head_hash = k.head_hash, head_entry_id = k.head_entry_id
    FROM k WHERE h.organization_id = k.organization_id AND h.environment = k.environment AND ${gate}
  )${also
    .map(
      (a, i) => `, also_${i} AS (
    ${
      a.where
        ? `${a.sql}
    AND ${gate}`
        : gated(a.sql)
    }
  )`,
    )
    .join('')}
  SELECT ok.ok, l.organization_id::text AS organization_id, l.environment, l.entries::text AS entries, l.head_hash FROM ok LEFT JOIN locked l ON true`;
}

/**
 * Another write the chained write makes in the same statement, only when it writes the entries
 * (e.g. the posting's outbox rows, whose events carry the entries' hashes): `sql` is an
 * `INSERT INTO ... SELECT ... FROM ...` with no WHERE clause, or (`where`) a write whose text ends in
 * its WHERE clause (`UPDATE ... FROM ... WHERE ...`), with `?` placeholders; `values` its values once
 * the hashes are known (called again if the write chains again). `name` names it.
 */
export interface AlsoWrite {
  name: string;
  sql: string;
  where?: boolean;
  values: (hashes: ReadonlyMap<string, string>) => unknown[];
}

const chainedCache = new Map<string, NamedSql>();
/** The chained write with `also` (the statement of each list of writes is made once). */
function writeChainedWith(also: readonly AlsoWrite[]): NamedSql {
  if (!also.length) return WRITE_CHAINED;
  const name = [WRITE_CHAINED.name, ...also.map((a) => a.name)].join('_');
  let s = chainedCache.get(name);
  if (!s) {
    s = { name, sql: chainedSql(also) };
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
  options: { chart?: readonly AccountDef[]; heads?: ChainHeads; also?: readonly AlsoWrite[] } = {},
): Promise<Map<string, string>> {
  const also = options.also ?? [];
  if (!entries.length && !also.length) return new Map();
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
  const statement = writeChainedWith(also);
  for (let attempt = 0; attempt < 2 && prev.size === scopes.length; attempt++) {
    const write = chainedWrite(built, scopes, prev);
    const rows = await run<HeadRow & { ok: boolean }>(statement, [...write.values, ...also.flatMap((a) => a.values(write.hashes))]);
    if (rows[0]?.ok === true) {
      for (const s of scopes) options.heads?.set(s, write.heads.get(keyOf(s))!);
      return write.hashes;
    }
    // Mispredicted, nothing written; the heads are locked now (held until COMMIT): chain after them.
    const locked = rows.filter((r) => r.organization_id !== null);
    prev = locked.length < scopes.length ? await lockHeads() : headsOf(locked);
  }
  options.heads?.forget(scopes);
  throw new Error('journal chain heads could not be locked');
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
